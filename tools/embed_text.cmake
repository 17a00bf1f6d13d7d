# Writes OUTPUT: a header defining `inline constexpr char NAME[]` with the bytes of INPUT and a final NUL.
# Run as: cmake -DINPUT=... -DOUTPUT=... -DNAME=... -P embed_text.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
string(REGEX REPLACE "(('\\\\x..',){24})" "\\1\n" bytes "${bytes}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}" "// Generated from ${name} by embed_text.cmake; do not edit.\n#pragma once\n"
     "inline constexpr char ${NAME}[] = {\n${bytes}'\\0'};\n")
