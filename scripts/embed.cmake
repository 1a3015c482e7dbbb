# Writes the file IN as a C string constant into OUT:
#   const char oklc_prelude[] = "...";  const unsigned long oklc_prelude_len
file(READ ${IN} text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE ${OUT} "/* generated from include/oklc/okl.hpp by scripts/embed.cmake */\n"
                  "const char oklc_prelude[] =\n\"${text}\";\n"
                  "const unsigned long oklc_prelude_len = sizeof oklc_prelude - 1;\n")
