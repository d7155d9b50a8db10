# Installs the build tree's ridgeline into WORK_DIR/prefix, then builds and runs the consumer.
file(REMOVE_RECURSE "${WORK_DIR}")
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_step.cmake")
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run("${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
# No RIDGELINE_DATA_DIR: the consumer must find the installed presets by itself.
run("${CMAKE_COMMAND}" -E env --unset=RIDGELINE_DATA_DIR "${WORK_DIR}/build/consumer")
