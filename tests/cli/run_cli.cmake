# Runs the CLI with ARGS (a ;-list) from the source tree and checks its exit status, and either
# its stdout against EXPECTED (a file) or its stderr against STDERR_MATCH (a regular expression).
execute_process(COMMAND "${CLI}" ${ARGS} WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL EXPECT_RC)
    message(FATAL_ERROR "ridgeline ${ARGS}: exit ${rc}, expected ${EXPECT_RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECTED)
    file(WRITE "${ACTUAL}" "${out}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${EXPECTED}" "${ACTUAL}" RESULT_VARIABLE differ)
    if(differ)
        execute_process(COMMAND diff -u "${EXPECTED}" "${ACTUAL}" OUTPUT_VARIABLE d)
        message(FATAL_ERROR "ridgeline ${ARGS}: output differs from ${EXPECTED} (to accept: cp ${ACTUAL} ${EXPECTED}):\n${d}")
    endif()
endif()
if(DEFINED STDERR_MATCH AND NOT err MATCHES "${STDERR_MATCH}")
    message(FATAL_ERROR "ridgeline ${ARGS}: stderr does not match '${STDERR_MATCH}':\n${err}")
endif()
if(DEFINED STDOUT_MATCH AND NOT out MATCHES "${STDOUT_MATCH}")
    message(FATAL_ERROR "ridgeline ${ARGS}: stdout does not match '${STDOUT_MATCH}':\n${out}")
endif()
# A NaN or an infinity as a word of its own (any case, "inf" or "infinity"), not inside a name
# such as nemotron-3-nano.
if(out MATCHES "(^|[^A-Za-z])-?([Nn][Aa][Nn]|[Ii][Nn][Ff]([Ii][Nn][Ii][Tt][Yy])?)([^A-Za-z]|$)" AND NOT "${ARGS}" MATCHES "help")
    message(FATAL_ERROR "ridgeline ${ARGS}: NaN or infinity in the output:\n${out}")
endif()
