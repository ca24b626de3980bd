/* SPDX-License-Identifier: MIT */
/* The ONNX opset onyx implements, for the loader and the op registry. */
#ifndef ONYX_CORE_OPSET_H
#define ONYX_CORE_OPSET_H

/* The newest ai.onnx opset onyx knows: no op it supports changed after it.
 * onyx_max_opset() returns it. */
#define ONYX__MAX_OPSET 28

#endif
