#!/bin/bash
# Mutation testing, by hand (not part of scripts/test.sh): every mutant of
# tests/mutation/mutants.txt applied to a scratch copy of the tree
# (build-mutation/ in the clone; DORADMA_MUTATION_DIR elsewhere), built
# incrementally and checked against the tests it names. Prints each
# mutant's verdict and the score; exits 1 if any survived or went stale.
#
#   bash tests/mutation/run.sh                 # every mutant
#   bash tests/mutation/run.sh --match writer  # ids or files matching
#   bash tests/mutation/run.sh --only a,b      # by id
#   bash tests/mutation/run.sh --build default # skip the TSan build's
#   bash tests/mutation/run.sh --check-stale   # patterns only, no build
#   bash tests/mutation/run.sh --list
set -euo pipefail
exec python3 "$(dirname "$0")/mutate.py" "$@"
