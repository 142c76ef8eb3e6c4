/* The scenarios' handle on model-cells.cpp. */
#ifndef DORADMA_MODEL_CELLS_H
#define DORADMA_MODEL_CELLS_H

/* The threads of an iteration run modelled: model_begin () at the end of
 * before (), once the objects exist; model_end () at the start of after ()
 * drops every word's atomic, and the tear-down runs on plain atomics. */
void model_begin (void);
/* At the start of before (): forgets what a failed iteration left (Relacy
 * re-runs the failing one to print its history). */
void model_reset (void);
void model_end (void);

#endif
