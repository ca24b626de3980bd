/* Sessions: a checked, sorted, kernel-bound plan of a model's graph. */
#ifndef ONYX_GRAPH_SESSION_H
#define ONYX_GRAPH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "ops/op.h"

typedef enum onyx__value_kind {
  ONYX__VALUE_INPUT,    /* bound by the caller at run time */
  ONYX__VALUE_CONSTANT, /* an initializer or a folded Constant node */
  ONYX__VALUE_COMPUTED  /* the output of a step */
} onyx__value_kind;

/* A named value of the graph. */
typedef struct onyx__value {
  const char *name;
  onyx__value_kind kind;
  onyx__value_desc desc;
  uint32_t input_index; /* ONYX__VALUE_INPUT: its position among run inputs */
  int32_t producer;     /* the model node index that defines it, or -1 */
} onyx__value;

/* One node to run: y = kernel(x) with Clip's bounds where present. */
typedef struct onyx__step {
  uint32_t node;       /* model node index, for messages */
  onyx__prepared prep;
  uint32_t x, y;       /* value indices */
  int32_t bound[2];    /* value indices of run-time Clip bounds, or -1 */
} onyx__step;

struct onyx_session {
  onyx__arena arena;
  const onyx_model *model;
  onyx_session_options opts;
  size_t n_values;
  onyx__value *values;
  size_t n_steps;
  onyx__step *steps;
  size_t n_inputs;
  uint32_t *input_values;
  onyx_value_info *input_info;
  size_t n_outputs;
  uint32_t *output_values;
  onyx_value_info *output_info;
};

#endif
