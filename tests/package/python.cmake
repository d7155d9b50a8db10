# Installs the build tree into a scratch prefix, moves (renames) that prefix, and imports the
# installed Python module from elsewhere: PYTHONPATH at the moved prefix's PYTHON_DIR only,
# RIDGELINE_DATA_DIR unset, run from a directory that is neither the prefix nor the source tree.
# The module must be the installed one, read the moved prefix's presets, and give seed 003's
# 201.8 tok/s. Expects BUILD_DIR, WORK_DIR, PYTHON (the interpreter) and PYTHON_DIR (where the
# module is installed, relative to the prefix).
file(REMOVE_RECURSE "${WORK_DIR}")
set(installed "${WORK_DIR}/installed")
set(moved "${WORK_DIR}/moved/elsewhere/prefix")  # a different depth, so no ../ guess can work
set(elsewhere "${WORK_DIR}/cwd")
file(MAKE_DIRECTORY "${elsewhere}" "${WORK_DIR}/moved/elsewhere")

function(run out)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=RIDGELINE_DATA_DIR --unset=PYTHONHOME ${ARGN}
                    WORKING_DIRECTORY "${elsewhere}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${stdout}\n${stderr}")
    endif()
    message(STATUS "${ARGN}\n${stdout}${stderr}")
    set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

run(_ "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${installed}")
file(GLOB module "${installed}/${PYTHON_DIR}/ridgeline*.so")
if(NOT module)
    message(FATAL_ERROR "the install did not put the module in ${installed}/${PYTHON_DIR}")
endif()
file(RENAME "${installed}" "${moved}")
# A preset only the moved prefix has: finding it shows the module read the moved
# share/ridgeline, not the source tree's data/ (whose path the module also knows).
file(COPY_FILE "${moved}/share/ridgeline/hardware/h100-sxm.json" "${moved}/share/ridgeline/hardware/only-in-moved-prefix.json")

run(out "${CMAKE_COMMAND}" -E env "PYTHONPATH=${moved}/${PYTHON_DIR}" PYTHONDONTWRITEBYTECODE=1 "${PYTHON}" -c [=[
import os, sys
import ridgeline
prefix = sys.argv[1]
assert os.path.realpath(ridgeline.__file__).startswith(os.path.realpath(prefix) + os.sep), ridgeline.__file__
assert "only-in-moved-prefix" in ridgeline.list_hardware(), ridgeline.list_hardware()
# Seed 003: Llama-3.1-8B on the H100 SXM at 4096 tokens of context, batch 1: 201.8 tok/s.
row = ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=1, context=4096, assumptions="seed_003")
print("module", ridgeline.__file__)
print("tokens_per_s %.1f" % row["tokens_per_s"])
]=] "${moved}")
if(NOT out MATCHES "tokens_per_s 201\\.8\n")
    message(FATAL_ERROR "expected the installed module's 201.8 tok/s, got:\n${out}")
endif()
