# The builds users make: the library's programs (the CLI and two examples) configured as a user
# would, with COMPILER in BUILD_TYPE, warnings as errors (stricter than a user's Release build,
# which keeps warnings as warnings), then the CLI run once to prove the build works.
file(REMOVE_RECURSE "${WORK_DIR}")
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_step.cmake")
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" "-DCMAKE_CXX_COMPILER=${COMPILER}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
    -DRIDGELINE_BUILD_TESTS=OFF -DRIDGELINE_WERROR=ON)
run("${CMAKE_COMMAND}" --build "${WORK_DIR}" -j2 --target ridgeline_cli decode_budget capacity_planner)
run("${CMAKE_COMMAND}" -E env "RIDGELINE_DATA_DIR=${SOURCE_DIR}/data" "${WORK_DIR}/bin/ridgeline" decode -m llama-3.1-8b -c 4096
    --assumptions seed_003 --format csv)
if(NOT last_output MATCHES ",201\\.8[0-9]*,")
    message(FATAL_ERROR "the ${BUILD_TYPE} build with ${COMPILER} does not reproduce seed 003's 201.8 tok/s:\n${last_output}")
endif()
