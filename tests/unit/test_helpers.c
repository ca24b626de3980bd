/* SPDX-License-Identifier: MIT */
/*
 * The public helpers of onyx.h: the half-float conversions give the
 * library's own conversions bit for bit (every float16 and bfloat16, and
 * float32 values around each), and the built-in operator list is the
 * registry's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka.h uses size_t, va_list and jmp_buf without including their headers. */
#include <cmocka.h>

#include "core/half.h"
#include "onyx.h"
#include "ops/op.h"

/*
 * What a float return value keeps of the float32 bits f. 32-bit x86
 * returns floats on the x87 stack, whose load quiets a signalling NaN
 * (onyx.h documents it); everywhere else every bit comes back.
 */
static uint32_t returned(uint32_t f) {
#if defined(__i386__) || defined(_M_IX86)
  if ((f & 0x7f800000u) == 0x7f800000u && (f & 0x007fffffu) != 0) return f | 0x00400000u;
#endif
  return f;
}

static void test_half_to_float(void **state) {
  (void)state;
  for (uint32_t b = 0; b <= 0xffffu; b++) {
    uint32_t pub = onyx__f32_bits(onyx_f16_to_float((uint16_t)b));
    uint32_t own = onyx__f32_bits(onyx__f16_to_f32((onyx__f16){(uint16_t)b}));
    assert_int_equal(pub, returned(own));
    pub = onyx__f32_bits(onyx_bf16_to_float((uint16_t)b));
    assert_int_equal(pub, returned((uint32_t)b << 16));
  }
}

static void test_float_to_half(void **state) {
  (void)state;
  /* Each half value's float32 and its neighbours, where rounding turns. */
  for (uint32_t b = 0; b <= 0xffffu; b++) {
    uint32_t base = onyx__f32_bits(onyx__f16_to_f32((onyx__f16){(uint16_t)b}));
    for (uint32_t delta = 0; delta < 5; delta++) {
      float f = onyx__f32_from_bits(base + delta * 0x400u - 0x800u);
      assert_int_equal(onyx_float_to_f16(f), onyx__f32_to_f16(f).bits);
      assert_int_equal(onyx_float_to_bf16(f), onyx__f32_to_bf16(f).bits);
    }
  }
  assert_int_equal(onyx_float_to_f16(1.0f), 0x3c00);
  assert_int_equal(onyx_float_to_bf16(1.0f), 0x3f80);
  assert_int_equal(onyx_float_to_f16(65520.0f), 0x7c00); /* rounds to infinity */
}

static void test_builtin_ops(void **state) {
  (void)state;
  size_t n = onyx_op_builtin_count();
  assert_int_equal(n, onyx__op_count());
  assert_true(n > 0);
  for (size_t i = 0; i < n; i++) {
    const char *name = onyx_op_builtin_name(i);
    assert_non_null(name);
    assert_ptr_equal(onyx__op_find(name), onyx__op_at(i, NULL));
  }
  assert_null(onyx_op_builtin_name(n));
  assert_null(onyx_op_builtin_name((size_t)-1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_half_to_float),
      cmocka_unit_test(test_float_to_half),
      cmocka_unit_test(test_builtin_ops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
