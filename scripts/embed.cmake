# Writes the file IN as a C string constant NAME into OUT:
#   const char NAME[] = "...";  const unsigned long NAME_len
# (the prelude of the parse, the definitions put in CPU backend output)
file(READ ${IN} text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
get_filename_component(src ${IN} NAME)
file(WRITE ${OUT} "/* generated from ${src} by scripts/embed.cmake */\n"
                  "const char ${NAME}[] =\n\"${text}\";\n"
                  "const unsigned long ${NAME}_len = sizeof ${NAME} - 1;\n")
