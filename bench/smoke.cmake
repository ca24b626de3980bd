# SPDX-License-Identifier: MIT
# bench.smoke: onyx_bench, built with the project's warnings, on the models
# gen_models.py writes, in its quick mode without ONNX Runtime (offline,
# seconds). It fails when onyx fails on a model or its output differs from
# its kernel API's or, where XNNPACK is built in (bench/xnnpack.cmake), from
# XNNPACK's; there the XNNPACK path must also run. Included from
# tests/CMakeLists.txt.
find_package(Threads REQUIRED)
set(ONYX_BENCH_DIR ${PROJECT_SOURCE_DIR}/bench)
include(${ONYX_BENCH_DIR}/xnnpack.cmake)
add_executable(onyx_bench_smoke ${ONYX_BENCH_DIR}/onyx_bench.c ${ONYX_BENCH_DIR}/xnn_bench.c
  ${ONYX_BENCH_DIR}/copy_loop.c)
target_compile_options(onyx_bench_smoke PRIVATE ${ONYX_WARNINGS})
target_compile_definitions(onyx_bench_smoke PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(onyx_bench_smoke PRIVATE onyx_static m Threads::Threads)
onyx_bench_use_xnnpack(onyx_bench_smoke)

set(ONYX_BENCH_MODELS ${CMAKE_CURRENT_BINARY_DIR}/bench_models)
add_test(NAME onyx.bench.smoke.models
  COMMAND ${ONYX_PYTHON} ${ONYX_BENCH_DIR}/gen_models.py ${ONYX_BENCH_MODELS})
set_tests_properties(onyx.bench.smoke.models PROPERTIES FIXTURES_SETUP onyx_bench_models)
add_test(NAME onyx.bench.smoke
  COMMAND onyx_bench_smoke --quick --no-ort --threads 1 --models ${ONYX_BENCH_MODELS}
    --ops Ceil,Floor,Clip,Sign --types float,float16,int8)
set_tests_properties(onyx.bench.smoke PROPERTIES FIXTURES_REQUIRED onyx_bench_models)
if(ONYX_BENCH_HAS_XNNPACK)
  set_tests_properties(onyx.bench.smoke PROPERTIES
    FAIL_REGULAR_EXPRESSION
    "going on without XNNPACK;XNNPACK n/a;XNNPACK DIFFERENT;XNNPACK kernel DIFF;XNNPACK FAILED")
endif()
