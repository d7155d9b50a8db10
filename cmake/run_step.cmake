# run(COMMAND...): one step of a CTest script. Stops the script with the command's output when
# it fails; otherwise prints the output and leaves it in `last_output` for checks.
function(run)
    execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}")
    endif()
    message(STATUS "${out}")
    set(last_output "${out}" PARENT_SCOPE)
endfunction()
