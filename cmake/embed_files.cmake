# cmake -DDIR=<folder> [-DFILES=<a,b,...>] [-DPREFIX=<text>] -DTEMPLATE=<file.cpp.in> -DOUTPUT=<file.cpp> -P embed_files.cmake
# Compiles files into a binary as bytes, run at build time (resources/tours: the tours; server/web: the web page),
# so nothing at run time reads the disk. Writes OUTPUT from TEMPLATE with @EMBEDDED_DATA@ (one
# `const unsigned char file_N[] = {0x.., ...};` per file, plus a trailing 0x00 its size does not count),
# @EMBEDDED_ROWS@ (one `entry("PREFIX+path", "content type", file_N, size),` per file: TEMPLATE defines entry()
# to make its own element type) and @EMBEDDED_COUNT@. The files are FILES (paths under DIR) in that order, or
# every file under DIR sorted by path. OUTPUT is only touched when its text changes, so an unrelated edit does
# not rebuild what depends on it.
if(FILES)
  string(REPLACE "," ";" files "${FILES}")
else()
  file(GLOB_RECURSE files RELATIVE "${DIR}" "${DIR}/*")
  list(SORT files)
endif()

function(content_type_of name out)
  get_filename_component(ext "${name}" LAST_EXT)
  string(TOLOWER "${ext}" ext)
  if(ext STREQUAL ".html")
    set(type "text/html; charset=utf-8")
  elseif(ext STREQUAL ".js" OR ext STREQUAL ".mjs")
    set(type "text/javascript; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(type "text/css; charset=utf-8")
  elseif(ext STREQUAL ".svg")
    set(type "image/svg+xml")
  elseif(ext STREQUAL ".png")
    set(type "image/png")
  elseif(ext STREQUAL ".json")
    set(type "application/json")
  elseif(ext STREQUAL ".txt" OR ext STREQUAL ".md")
    set(type "text/plain; charset=utf-8")
  else()
    set(type "application/octet-stream")
  endif()
  set(${out} "${type}" PARENT_SCOPE)
endfunction()

set(EMBEDDED_DATA "")
set(EMBEDDED_ROWS "")
set(EMBEDDED_COUNT 0)
foreach(name IN LISTS files)
  file(READ "${DIR}/${name}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  # "0x0a,0x1b," sixteen to a line keeps the generated file simple ("'\x0a'" would be larger).
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  string(APPEND EMBEDDED_DATA "// ${name}\nconst unsigned char file_${EMBEDDED_COUNT}[] = {\n${bytes}0x00};\n")
  content_type_of("${name}" type)
  string(APPEND EMBEDDED_ROWS "    entry(\"${PREFIX}${name}\", \"${type}\", file_${EMBEDDED_COUNT}, ${size}),\n")
  math(EXPR EMBEDDED_COUNT "${EMBEDDED_COUNT} + 1")
endforeach()

configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
