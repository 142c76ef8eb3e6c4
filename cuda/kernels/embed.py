#!/usr/bin/env python3
# Writes a C file holding a binary file as a byte array:
#   embed.py INPUT OUTPUT SYMBOL  ->  const unsigned char SYMBOL[]; SYMBOL_size
import sys

src, dst, sym = sys.argv[1:4]
data = open(src, 'rb').read()
with open(dst, 'w') as f:
    f.write('/* generated from %s by embed.py; do not edit */\n'
            '#include <stddef.h>\n' % src.split('/')[-1])
    # 8-byte alignment: cuModuleLoadData reads the fatbin header in place.
    f.write('__attribute__ ((aligned (8))) const unsigned char %s[] = {\n'
            % sym)
    for i in range(0, len(data), 16):
        f.write('  ' + ', '.join('0x%02x' % b for b in data[i:i + 16]) + ',\n')
    f.write('};\nconst size_t %s_size = %d;\n' % (sym, len(data)))
