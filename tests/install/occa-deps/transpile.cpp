// As OCCA's transpiler_utils.cpp calls the oklt interface.
#include <cstdio>

#include <oklt/core/error.h>
#include <oklt/pipeline/normalizer_and_transpiler.h>
#include <oklt/util/io_helper.h>

extern "C" int occa_like_transpile(const char *file, const char *mode, const char *out)
{
    auto source = oklt::util::readFileAsStr(file);
    auto backend = oklt::backendFromString(mode);
    if (!source || !backend)
        return 2;
    oklt::UserInput input{.backend = *backend,
                          .source = std::move(source.value()),
                          .headers = {},
                          .sourcePath = file,
                          .includeDirectories = {},
                          .defines = {"BLOCK=64"},
                          .hash = "0"};
    auto result = oklt::normalizeAndTranspile(std::move(input));
    if (!result) {
        for (const auto &e : result.error())
            fprintf(stderr, "%s", e.desc.c_str());
        return 1;
    }
    return oklt::util::writeFileAsStr(out, result->kernel.source + result->kernel.metadata) ? 0 : 3;
}
