# Run at build time (cmake -P): writes OUT, the version header of every MeshScope executable, with the project's
# version and the commit of the source tree (git; "-dirty" when tracked files differ from it; "unknown" outside a
# git checkout), and touches it only when that changed, so a rebuild recompiles nothing for an unchanged commit.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "// Written by cmake/version.cmake at build time.\n#pragma once\n#define MESHSCOPE_VERSION \"${VERSION}\"\n#define MESHSCOPE_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
