/* SPDX-License-Identifier: MIT */
#include "core/opset.h"

#include "onyx.h"

int64_t onyx_max_opset(void) { return ONYX__MAX_OPSET; }
