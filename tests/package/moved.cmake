# Installs the build tree into a scratch prefix, moves (renames) that prefix, and checks that
# what it holds still works from anywhere without RIDGELINE_DATA_DIR: the installed CLI finds
# the moved presets next to its bin/, and a consumer configured against the moved prefix finds
# them through ridgelineConfig.cmake. Expects BUILD_DIR, CONSUMER_DIR and WORK_DIR; with PYTHON
# (the interpreter) and PYTHON_DIR (where the module is installed, relative to the prefix), also
# imports the installed Python module from the moved prefix, PYTHONPATH at its PYTHON_DIR only.
file(REMOVE_RECURSE "${WORK_DIR}")
set(installed "${WORK_DIR}/installed")
set(moved "${WORK_DIR}/moved/elsewhere/prefix")  # a different depth, so no ../ guess can work
set(elsewhere "${WORK_DIR}/cwd")                 # neither the prefix nor the source tree
file(MAKE_DIRECTORY "${elsewhere}" "${WORK_DIR}/moved/elsewhere")

# run(<output variable> COMMAND...): runs with RIDGELINE_DATA_DIR (and PYTHONHOME) unset, from `elsewhere`.
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
function(expect text regex what)
    if(NOT text MATCHES "${regex}")
        message(FATAL_ERROR "expected ${what} (/${regex}/), got:\n${text}")
    endif()
endfunction()

run(_ "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${installed}")
file(RENAME "${installed}" "${moved}")
if(EXISTS "${installed}")
    message(FATAL_ERROR "${installed} still exists after the move")
endif()
foreach(f bin/ridgeline share/ridgeline/hardware/h100-sxm.json share/ridgeline/models/llama-3.1-8b.json
          share/cmake/ridgeline/ridgelineConfig.cmake)
    if(NOT EXISTS "${moved}/${f}")
        message(FATAL_ERROR "the install did not produce ${f}")
    endif()
endforeach()
# A preset only the moved prefix has: listing it shows the CLI read the moved share/ridgeline,
# not the source tree's data/ (whose path the build tree's CLI also knows).
file(COPY_FILE "${moved}/share/ridgeline/hardware/h100-sxm.json"
               "${moved}/share/ridgeline/hardware/only-in-moved-prefix.json")

# The installed CLI, run from elsewhere.
run(list "${moved}/bin/ridgeline" list hardware)
expect("${list}" "(^|\n)only-in-moved-prefix " "the preset that only the moved prefix holds")
expect("${list}" "(^|\n)h100-sxm " "h100-sxm among the hardware presets")

# Seed 003: Llama-3.1-8B (8,030,261,248 parameters, bf16) on H100 SXM at 4096 context, batch 1:
# 201.8 tok/s under seed 003's assumptions. The table's row, then the same number from --format json.
run(table "${moved}/bin/ridgeline" decode -m llama-3.1-8b -H h100-sxm -c 4096 --assumptions seed_003)
expect("${table}" "(^|\n)h100-sxm +llama-3\\.1-8b [^\n]* 4096 [^\n]* 201\\.8 +201\\.8 +memory "
       "the decode row with 201.8 tok/s")
run(json "${moved}/bin/ridgeline" decode -m llama-3.1-8b -H h100-sxm -c 4096 --assumptions seed_003 --format json)
string(JSON tok_s GET "${json}" 0 tokens_per_s)
expect("${tok_s}" "^201\\.8" "tokens_per_s 201.8...")

# A consumer configured, built and run against the moved prefix.
run(_ "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer" "-DCMAKE_PREFIX_PATH=${moved}")
file(STRINGS "${WORK_DIR}/consumer/CMakeCache.txt" found REGEX "^ridgeline_DIR:")
expect("${found}" "=${moved}/share/cmake/ridgeline$" "find_package(ridgeline) to find the moved prefix")
run(_ "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer")
run(out "${WORK_DIR}/consumer/consumer")
expect("${out}" "201\\.8 tok/s" "the consumer's 201.8 tok/s")

# The installed Python module, imported from elsewhere: it must be the moved prefix's, read the
# moved share/ridgeline (the preset only it holds), and give seed 003's 201.8 tok/s.
if(DEFINED PYTHON)
    file(GLOB module "${moved}/${PYTHON_DIR}/ridgeline*.so")
    if(NOT module)
        message(FATAL_ERROR "the install did not put the Python module in ${PYTHON_DIR}")
    endif()
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
    expect("${out}" "tokens_per_s 201\\.8\n" "the installed module's 201.8 tok/s")
endif()
