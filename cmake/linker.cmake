# The linker for every executable of a tree. A Debug tree links about 80 executables against Qt, Boost and
# SQLite; ccache caches compiles but never links, so on two cores GNU ld's links are minutes of every build,
# cold or warm. mold links the same executables 3 to 7 times faster (docs/benchmarks.md, "The test command's
# time"), so it is used wherever it is installed (scripts/bootstrap.sh installs it); MESHSCOPE_LINKER names
# another (bfd, gold, lld, mold) or `default` for the compiler's own choice.
set(MESHSCOPE_LINKER "auto" CACHE STRING "Linker for executables: auto (mold when installed), default, bfd, gold, lld, mold")
set_property(CACHE MESHSCOPE_LINKER PROPERTY STRINGS auto default bfd gold lld mold)

set(meshscope_linker "${MESHSCOPE_LINKER}")
if(meshscope_linker STREQUAL "auto")
  find_program(MESHSCOPE_MOLD_PROGRAM NAMES ld.mold mold)
  if(MESHSCOPE_MOLD_PROGRAM)
    set(meshscope_linker mold)
  else()
    set(meshscope_linker default)
  endif()
endif()
if(NOT meshscope_linker STREQUAL "default")
  add_link_options("-fuse-ld=${meshscope_linker}")
endif()
message(STATUS "MeshScope: linker ${meshscope_linker}")
