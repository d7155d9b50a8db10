# A second build of the tests with clang: the unit tests under clang's AddressSanitizer and
# UBSan (warnings as errors there too), and the libFuzzer targets for a bounded time each.
file(MAKE_DIRECTORY "${WORK_DIR}")
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_step.cmake")
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" "-DCMAKE_CXX_COMPILER=${CLANGXX}" -DRIDGELINE_FUZZ=ON
    -DRIDGELINE_CLANG_CHECK=OFF -DRIDGELINE_BUILD_EXAMPLES=OFF -DRIDGELINE_INSTALL=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # -O1 as ASan's documentation advises, and line tables only (all a report needs): the build
    # is this test's longest part and the suite's, and -O2 -g made it longer.
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DRIDGELINE_WERROR=ON)
run("${CMAKE_COMMAND}" --build "${WORK_DIR}" -j2 --target ridgeline_tests_sanitized fuzz_hardware fuzz_model fuzz_measurements fuzz_setting fuzz_args)
run("${CMAKE_CTEST_COMMAND}" --test-dir "${WORK_DIR}" -R "asan|fuzz" --output-on-failure)
