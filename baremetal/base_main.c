/* SPDX-License-Identifier: MIT */
/*
 * The baseline image: the size image's startup code, linker script and C
 * library set-up with an empty main, as TensorFlow Lite Micro measures its
 * footprint (an image minus a no-op baseline image, both with `size`).
 * scripts/baremetal.sh subtracts its size from each size image's.
 */
int main(void) { return 0; }
