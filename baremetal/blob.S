/* SPDX-License-Identifier: MIT */
/* Embeds the file ONYX_BLOB_FILE (a -D definition: a quoted path) as the
 * read-only bytes onyx_blob .. onyx_blob_end: the packed cases of the test
 * image (pack_cases.py), or the model of the size image. */
  .section .rodata.onyx_blob, "a"
  .balign 8
  .global onyx_blob
onyx_blob:
  .incbin ONYX_BLOB_FILE
  .global onyx_blob_end
onyx_blob_end:
