/*
 * ccargs - reads a compile_commands.json for tests/editor/editor.sh (no
 * Python on a minimal Debian):
 *   ccargs FILE count              the number of entries
 *   ccargs FILE N directory|file   that string of entry N (from 0)
 *   ccargs FILE N arguments        its arguments, each followed by a NUL byte
 * Exits 1, saying why, unless FILE is a list of entries that each have
 * exactly "directory", "file" and "arguments" (a list of strings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static int fail(const char *why, int entry)
{
    fprintf(stderr, "ccargs: %s (entry %d)\n", why, entry);
    return 1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = 0;
    } else {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

/* 0 when every entry has the three members, of the right types. */
static int check(const cJSON *list)
{
    if (!cJSON_IsArray(list))
        return fail("not a JSON list", -1);
    int i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "arguments");
        if (!cJSON_IsObject(e) || cJSON_GetArraySize(e) != 3)
            return fail("not an object of three members", i);
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "directory")) ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "file")))
            return fail("no \"directory\" or \"file\" string", i);
        if (!cJSON_IsArray(args) || cJSON_GetArraySize(args) < 2)
            return fail("no \"arguments\" list", i);
        for (const cJSON *a = args->child; a; a = a->next)
            if (!cJSON_IsString(a))
                return fail("an argument that is not a string", i);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (argc == 3 && strcmp(argv[2], "count")) || argc > 4) {
        fprintf(stderr, "usage: ccargs FILE count | ccargs FILE N directory|file|arguments\n");
        return 2;
    }
    char *text = slurp(argv[1]);
    cJSON *list = text ? cJSON_Parse(text) : NULL;
    free(text);
    int status = list ? check(list) : fail("cannot read or parse the file", -1);
    const cJSON *e = argc == 4 ? cJSON_GetArrayItem(list, atoi(argv[2])) : NULL;
    const cJSON *v = e ? cJSON_GetObjectItemCaseSensitive(e, argv[3]) : NULL;
    if (status == 0 && argc == 3) {
        printf("%d\n", cJSON_GetArraySize(list));
    } else if (status == 0 && cJSON_IsString(v)) {
        printf("%s\n", v->valuestring);
    } else if (status == 0 && cJSON_IsArray(v)) {
        for (const cJSON *a = v->child; a; a = a->next)
            fwrite(a->valuestring, 1, strlen(a->valuestring) + 1, stdout);
    } else if (status == 0) {
        status = fail("no such entry or member", atoi(argv[2]));
    }
    cJSON_Delete(list);
    return status;
}
