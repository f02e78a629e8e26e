# Helpers of the scripts that compile files into the binaries as bytes (server/web/embed_web_assets.cmake: the web
# page; resources/tours/embed_tours.cmake: the tours), run with `cmake -P` at build time.

# embed_bytes(FILE NAME DATA_VAR SIZE_VAR): a C++ definition `const unsigned char NAME[] = {0x.., ...};` of FILE's
# bytes (plus a trailing 0x00 that SIZE_VAR does not count), with a comment line naming LABEL above it.
function(embed_bytes file label name data_var size_var)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  # "0a1b..." -> "'\x0a','\x1b',..." would be larger; "0x0a,0x1b," keeps the generated file simple.
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  set(${data_var} "// ${label}\nconst unsigned char ${name}[] = {\n${bytes}0x00};\n" PARENT_SCOPE)
  set(${size_var} "${size}" PARENT_SCOPE)
endfunction()

# write_if_changed(OUTPUT TEXT): only touches OUTPUT when its text changes, so an unrelated edit does not rebuild
# what depends on it.
function(write_if_changed output text)
  if(EXISTS "${output}")
    file(READ "${output}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${output}" "${text}")
endfunction()
