# SPDX-License-Identifier: MIT
# XNNPACK for onyx_bench, optional: Debian's libxnnpack-dev (with
# libpthreadpool-dev and libcpuinfo-dev). onyx_bench_use_xnnpack(target)
# builds the target with bench/xnn_bench.c's XNNPACK side where all of it is
# found, and sets ONYX_BENCH_HAS_XNNPACK; without it the target runs the
# rest and says why.
find_path(ONYX_BENCH_XNNPACK_INCLUDE xnnpack.h)
find_path(ONYX_BENCH_PTHREADPOOL_INCLUDE pthreadpool.h)
find_library(ONYX_BENCH_XNNPACK_LIB XNNPACK)
find_library(ONYX_BENCH_PTHREADPOOL_LIB pthreadpool)
if(ONYX_BENCH_XNNPACK_INCLUDE AND ONYX_BENCH_PTHREADPOOL_INCLUDE AND ONYX_BENCH_XNNPACK_LIB
   AND ONYX_BENCH_PTHREADPOOL_LIB)
  set(ONYX_BENCH_HAS_XNNPACK ON)
else()
  set(ONYX_BENCH_HAS_XNNPACK OFF)
endif()

function(onyx_bench_use_xnnpack target)
  if(ONYX_BENCH_HAS_XNNPACK)
    target_compile_definitions(${target} PRIVATE ONYX_BENCH_XNNPACK)
    target_include_directories(${target} PRIVATE ${ONYX_BENCH_XNNPACK_INCLUDE}
                                                 ${ONYX_BENCH_PTHREADPOOL_INCLUDE})
    target_link_libraries(${target} PRIVATE ${ONYX_BENCH_XNNPACK_LIB} ${ONYX_BENCH_PTHREADPOOL_LIB})
  endif()
endfunction()
