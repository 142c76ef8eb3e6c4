/* Written by tests/relacy/orderings.py --header: do not edit.
 * SITE_X (...) is site X of lib/ with the memory order lib gives
 * it, read from orderings.cpp at run time (generated). */
#ifndef DORADMA_RELACY_SITES_H
#define DORADMA_RELACY_SITES_H
extern const int site_mo_PUBLISH_SLOT_SEQ;
#define SITE_PUBLISH_SLOT_SEQ(p, v) dr_atomic_store ((p), (v), site_mo_PUBLISH_SLOT_SEQ)
extern const int site_mo_PUBLISH_NEWEST;
#define SITE_PUBLISH_NEWEST(p, v) dr_atomic_store ((p), (v), site_mo_PUBLISH_NEWEST)
extern const int site_mo_EOS_FINAL_SEQ;
#define SITE_EOS_FINAL_SEQ(p, v) dr_atomic_store ((p), (v), site_mo_EOS_FINAL_SEQ)
extern const int site_mo_EOS_STATE;
#define SITE_EOS_STATE(p, v) dr_atomic_store ((p), (v), site_mo_EOS_STATE)
extern const int site_mo_WRITER_CONSUMED;
#define SITE_WRITER_CONSUMED(p) dr_atomic_load ((p), site_mo_WRITER_CONSUMED)
extern const int site_mo_FIND_NEWEST;
#define SITE_FIND_NEWEST(p) dr_atomic_load ((p), site_mo_FIND_NEWEST)
extern const int site_mo_FIND_SLOT_SEQ;
#define SITE_FIND_SLOT_SEQ(p) dr_atomic_load ((p), site_mo_FIND_SLOT_SEQ)
extern const int site_mo_LEASE_GEN;
#define SITE_LEASE_GEN(p) dr_atomic_load ((p), site_mo_LEASE_GEN)
extern const int site_mo_NEXT_STATE;
#define SITE_NEXT_STATE(p) dr_atomic_load ((p), site_mo_NEXT_STATE)
extern const int site_mo_CONSUME;
#define SITE_CONSUME(p, v) dr_atomic_store ((p), (v), site_mo_CONSUME)
extern const int site_mo_CAPS_ODD_FENCE;
#define SITE_CAPS_ODD_FENCE() do { if (site_mo_CAPS_ODD_FENCE > 0) dr_atomic_fence (site_mo_CAPS_ODD_FENCE); } while (0)
extern const int site_mo_CAPS_PUBLISH;
#define SITE_CAPS_PUBLISH(p, v) dr_atomic_store ((p), (v), site_mo_CAPS_PUBLISH)
extern const int site_mo_SUPERSEDE_STATE;
#define SITE_SUPERSEDE_STATE(p, v) dr_atomic_store ((p), (v), site_mo_SUPERSEDE_STATE)
extern const int site_mo_REPLACE_STATE;
#define SITE_REPLACE_STATE(p, v) dr_atomic_store ((p), (v), site_mo_REPLACE_STATE)
extern const int site_mo_REPLACE_ACTIVE;
#define SITE_REPLACE_ACTIVE(p) dr_atomic_load ((p), site_mo_REPLACE_ACTIVE)
extern const int site_mo_STOPPED;
#define SITE_STOPPED(p, v) dr_atomic_store ((p), (v), site_mo_STOPPED)
extern const int site_mo_SWEEP_FREE;
#define SITE_SWEEP_FREE(p, v) dr_atomic_store ((p), (v), site_mo_SWEEP_FREE)
extern const int site_mo_MIN_ACTIVE;
#define SITE_MIN_ACTIVE(p) dr_atomic_load ((p), site_mo_MIN_ACTIVE)
extern const int site_mo_EVICT_STATE;
#define SITE_EVICT_STATE(p, v) dr_atomic_store ((p), (v), site_mo_EVICT_STATE)
extern const int site_mo_EVICT_ACTIVE;
#define SITE_EVICT_ACTIVE(p) dr_atomic_load ((p), site_mo_EVICT_ACTIVE)
extern const int site_mo_EVICT_CONSUMED;
#define SITE_EVICT_CONSUMED(p) dr_atomic_load ((p), site_mo_EVICT_CONSUMED)
extern const int site_mo_UNADOPTED_ACTIVE;
#define SITE_UNADOPTED_ACTIVE(p) dr_atomic_load ((p), site_mo_UNADOPTED_ACTIVE)
extern const int site_mo_OLD_ENTRY_STATE;
#define SITE_OLD_ENTRY_STATE(p) dr_atomic_load ((p), site_mo_OLD_ENTRY_STATE)
extern const int site_mo_ACTIVE_READERS;
#define SITE_ACTIVE_READERS(p) dr_atomic_load ((p), site_mo_ACTIVE_READERS)
extern const int site_mo_ABANDON_SLOT_SEQ;
#define SITE_ABANDON_SLOT_SEQ(p, v) dr_atomic_store ((p), (v), site_mo_ABANDON_SLOT_SEQ)
extern const int site_mo_JOIN_NEWEST;
#define SITE_JOIN_NEWEST(p) dr_atomic_load ((p), site_mo_JOIN_NEWEST)
extern const int site_mo_JOIN_CONSUMED;
#define SITE_JOIN_CONSUMED(p, v) dr_atomic_store ((p), (v), site_mo_JOIN_CONSUMED)
extern const int site_mo_JOIN_STATE;
#define SITE_JOIN_STATE(p, v) dr_atomic_store ((p), (v), site_mo_JOIN_STATE)
extern const int site_mo_JOIN_ACTIVE;
#define SITE_JOIN_ACTIVE(p, v) dr_atomic_fetch_or ((p), (v), site_mo_JOIN_ACTIVE)
extern const int site_mo_CLOSE_ACTIVE;
#define SITE_CLOSE_ACTIVE(p, v) dr_atomic_fetch_and ((p), (v), site_mo_CLOSE_ACTIVE)
extern const int site_mo_CLOSE_STATE;
#define SITE_CLOSE_STATE(p, v) dr_atomic_store ((p), (v), site_mo_CLOSE_STATE)
extern const int site_mo_CLEAR_LEASES;
#define SITE_CLEAR_LEASES(p, v) dr_atomic_fetch_and ((p), (v), site_mo_CLEAR_LEASES)
extern const int site_mo_EVICTED_STATE;
#define SITE_EVICTED_STATE(p) dr_atomic_load ((p), site_mo_EVICTED_STATE)
extern const int site_mo_EVICTED_NEWEST;
#define SITE_EVICTED_NEWEST(p) dr_atomic_load ((p), site_mo_EVICTED_NEWEST)
extern const int site_mo_EVICTED_CONSUMED;
#define SITE_EVICTED_CONSUMED(p, v) dr_atomic_store ((p), (v), site_mo_EVICTED_CONSUMED)
extern const int site_mo_EVICTED_ACTIVE;
#define SITE_EVICTED_ACTIVE(p, v) dr_atomic_store ((p), (v), site_mo_EVICTED_ACTIVE)
extern const int site_mo_STOPPED_LOAD;
#define SITE_STOPPED_LOAD(p) dr_atomic_load ((p), site_mo_STOPPED_LOAD)
extern const int site_mo_NEXT_STATE_AGAIN;
#define SITE_NEXT_STATE_AGAIN(p) dr_atomic_load ((p), site_mo_NEXT_STATE_AGAIN)
extern const int site_mo_NEXT_NEWEST;
#define SITE_NEXT_NEWEST(p) dr_atomic_load ((p), site_mo_NEXT_NEWEST)
extern const int site_mo_SET_LAST_SEQ;
#define SITE_SET_LAST_SEQ(p, v) dr_atomic_store ((p), (v), site_mo_SET_LAST_SEQ)
extern const int site_mo_POOL_READ_BEGIN;
#define SITE_POOL_READ_BEGIN(p) dr_atomic_load ((p), site_mo_POOL_READ_BEGIN)
extern const int site_mo_POOL_READ_FENCE;
#define SITE_POOL_READ_FENCE() do { if (site_mo_POOL_READ_FENCE > 0) dr_atomic_fence (site_mo_POOL_READ_FENCE); } while (0)
extern const int site_mo_POOL_CREATE;
#define SITE_POOL_CREATE(p, v) dr_atomic_store ((p), (v), site_mo_POOL_CREATE)
extern const int site_mo_POOL_BEGIN_FENCE;
#define SITE_POOL_BEGIN_FENCE() do { if (site_mo_POOL_BEGIN_FENCE > 0) dr_atomic_fence (site_mo_POOL_BEGIN_FENCE); } while (0)
extern const int site_mo_POOL_END;
#define SITE_POOL_END(p, v) dr_atomic_store ((p), (v), site_mo_POOL_END)
extern const int site_mo_SPIN_STOP;
#define SITE_SPIN_STOP(p) dr_atomic_load ((p), site_mo_SPIN_STOP)
extern const int site_mo_INSPECT_FENCE_1;
#define SITE_INSPECT_FENCE_1() do { if (site_mo_INSPECT_FENCE_1 > 0) dr_atomic_fence (site_mo_INSPECT_FENCE_1); } while (0)
extern const int site_mo_INSPECT_FENCE_2;
#define SITE_INSPECT_FENCE_2() do { if (site_mo_INSPECT_FENCE_2 > 0) dr_atomic_fence (site_mo_INSPECT_FENCE_2); } while (0)
#endif
