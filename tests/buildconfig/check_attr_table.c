// SPDX-License-Identifier: MIT
/*
 * The attribute-type table of src/config/config.h (ONYX__OP_ATTR_TYPES),
 * from which cmake/buildconfig.cmake tells a reduced build's model reader
 * which attribute values to decode, against the op registry's version
 * tables: one entry per version of every op, and its mask exactly the
 * types of that version's attributes. An op, version or attribute added to
 * src/ops/ without the table fails here, rather than a reduced build
 * dropping an attribute value its op reads. Prints what differs; exits 0
 * when nothing does.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "ops/op.h"

static const struct {
  const char *op;
  int since;
  unsigned mask;
} table[] = {
#define ONYX_X_(op, since, mask) {#op, since, mask},
    ONYX__OP_ATTR_TYPES(ONYX_X_)
#undef ONYX_X_
};
#define N_TABLE (sizeof table / sizeof table[0])

int main(void) {
  int bad = 0;
  size_t matched = 0;
  for (size_t i = 0; i < onyx__op_count(); i++) {
    const char *name = NULL;
    const onyx__op *op = onyx__op_at(i, &name);
    for (size_t v = 0; v < op->n_versions; v++) {
      const onyx__op_version *ver = &op->versions[v];
      unsigned mask = 0;
      for (const onyx__attr_spec *a = ver->attrs; a->name != NULL; a++) mask |= 1u << a->type;
      size_t k = 0;
      while (k < N_TABLE && !(strcmp(table[k].op, name) == 0 && table[k].since == ver->since)) k++;
      if (k == N_TABLE) {
        printf("check_attr_table: %s-%d has no entry in ONYX__OP_ATTR_TYPES\n", name, ver->since);
        bad = 1;
      } else if (table[k].mask != mask) {
        printf("check_attr_table: %s-%d: the table says 0x%x, its attributes 0x%x\n", name,
               ver->since, table[k].mask, mask);
        bad = 1;
      } else {
        matched++;
      }
    }
  }
  if (matched != N_TABLE) {
    printf("check_attr_table: %zu entries, %zu of them versions the registry has\n", N_TABLE,
           matched);
    bad = 1;
  }
  if (!bad) printf("check_attr_table: %zu op versions, ok\n", matched);
  return bad;
}
