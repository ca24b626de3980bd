/* SPDX-License-Identifier: MIT */
/*
 * Node attributes as onyx info shows them: numbers, strings and lists as
 * they are, a tensor (a Constant's value) as its type, shape and first
 * values. Text shows at most SHOWN_VALUES entries of a list or tensor and
 * counts the rest; JSON shows every entry of a list and the values of a
 * tensor of at most JSON_TENSOR_VALUES elements (else null), so that its
 * size stays in step with the model's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"

/* AttributeProto.AttributeType values that onyx_model_node_attribute fills. */
enum {
  ATTR_FLOAT = 1,
  ATTR_INT = 2,
  ATTR_STRING = 3,
  ATTR_TENSOR = 4,
  ATTR_FLOATS = 6,
  ATTR_INTS = 7
};
enum { SHOWN_VALUES = 8, JSON_TENSOR_VALUES = 16 };

/* Writes a formatted number; JSON has no nan or inf, so there they are strings. */
static void put_number(const char *text, int json) {
  int finite = text[0] != 'n' && text[text[0] == '-'] != 'i';
  if (json && !finite)
    printf("\"%s\"", text);
  else
    fputs(text, stdout);
}

/* "[v0, v1, ...]": the n elements of type dt at p, the first shown ones,
 * then in text ", ... (N in all)". */
static void put_values(onyx_dtype dt, const void *p, size_t n, size_t shown, int json) {
  size_t esize = onyx_dtype_size(dt);
  char buf[CLI_VALUE_CHARS];
  if (shown > n) shown = n;
  putchar('[');
  for (size_t i = 0; i < shown; i++) {
    if (i) fputs(", ", stdout);
    cli_format_value(buf, sizeof buf, dt, (const unsigned char *)p + i * esize);
    put_number(buf, json);
  }
  if (shown < n) printf(", ... (%zu in all)", n);
  putchar(']');
}

/* "float [3] = [1, 2, 3]", or {"type": "float", "shape": [3], "values": [..]}. */
static void put_tensor(const onyx_tensor *t, int json) {
  int ok = 1;
  size_t n = cli_element_count(t, &ok);
  int have = ok && (n == 0 || t->data != NULL);
  if (json) {
    printf("{\"type\": \"%s\", \"shape\": ", onyx_dtype_name(t->dtype));
    cli_put_json_dims(stdout, t->rank, t->dims);
    fputs(", \"values\": ", stdout);
    if (have && n <= JSON_TENSOR_VALUES)
      put_values(t->dtype, t->data, n, n, 1);
    else
      fputs("null", stdout);
    putchar('}');
    return;
  }
  cli_strbuf sb = {0};
  cli_sb_dims(&sb, t->rank, t->dims);
  printf("%s %s", onyx_dtype_name(t->dtype), cli_sb_str(&sb));
  cli_sb_free(&sb);
  if (!have) {
    fputs(" (values not read yet)", stdout);
    return;
  }
  fputs(" = ", stdout);
  if (t->rank == 0) { /* a scalar: its value alone */
    char buf[CLI_VALUE_CHARS];
    cli_format_value(buf, sizeof buf, t->dtype, t->data);
    fputs(buf, stdout);
  } else {
    put_values(t->dtype, t->data, n, SHOWN_VALUES, 0);
  }
}

static void put_attr_value(const onyx_attribute_info *a, int json) {
  char buf[CLI_VALUE_CHARS];
  size_t list_shown = json ? a->count : SHOWN_VALUES;
  switch (a->type) {
    case ATTR_FLOAT:
      cli_format_value(buf, sizeof buf, ONYX_DTYPE_FLOAT, (const unsigned char *)&a->f);
      put_number(buf, json);
      break;
    case ATTR_INT:
      printf("%" PRId64, a->i);
      break;
    case ATTR_STRING:
      if (json)
        cli_put_json(stdout, a->s ? a->s : "");
      else
        printf("'%s'", cli_esc(a->s ? a->s : ""));
      break;
    case ATTR_FLOATS:
      put_values(ONYX_DTYPE_FLOAT, a->floats, a->count, list_shown, json);
      break;
    case ATTR_INTS:
      put_values(ONYX_DTYPE_INT64, a->ints, a->count, list_shown, json);
      break;
    default:
      if (a->type == ATTR_TENSOR && a->has_tensor)
        put_tensor(&a->tensor, json);
      else if (json)
        fputs("null", stdout);
      else
        printf("(AttributeProto type %d, not shown)", a->type);
  }
}

onyx_status cli_put_attributes(const onyx_model *model, size_t node, int json, onyx_error *err) {
  size_t n = onyx_model_node_attribute_count(model, node);
  if (json) fputs(", \"attributes\": [", stdout);
  for (size_t k = 0; k < n; k++) {
    onyx_attribute_info a;
    cli_reset_error(err);
    onyx_status st = onyx_model_node_attribute(model, node, k, &a, err);
    if (st != ONYX_OK) return st;
    if (json) {
      fputs(k ? ", {\"name\": " : "{\"name\": ", stdout);
      cli_put_json(stdout, a.name);
      printf(", \"type\": %d, \"value\": ", a.type);
    } else {
      printf("      %s = ", cli_esc(a.name));
    }
    put_attr_value(&a, json);
    fputs(json ? "}" : "\n", stdout);
  }
  if (json) putchar(']');
  return ONYX_OK;
}
