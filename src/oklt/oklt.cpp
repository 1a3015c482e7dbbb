/*
 * oklt.cpp - the oklt interface (include/oklt/, the transpiler API OCCA
 * calls: docs/occa.md) over liboklc's C API. No second transpiler: each
 * call is one oklc context set up from the UserInput, in OCCA's convention
 * (oklc_set_convention), whose output, metadata and diagnostics become the
 * UserOutput or the Errors.
 *
 *   backend          SERIAL, OPENMP, CUDA, HIP, DPCPP; _LAUNCHER: CUDA's
 *                    launcher, as the output's kernel part
 *   source           transpiled from memory, named sourcePath in messages
 *                    ("..." includes are searched from its folder)
 *   headers          in-memory files (oklc_add_header)
 *   includeDirectories, defines   -I, -D; then the working directory as
 *                    the last -I: OCCA's own parser resolves "..." there
 *                    (OCCA transpiles a copy of the kernel in its cache)
 */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <oklt/core/error.h>
#include <oklt/pipeline/normalizer.h>
#include <oklt/pipeline/normalizer_and_transpiler.h>
#include <oklt/pipeline/transpiler.h>
#include <oklt/util/io_helper.h>

#include "oklc/oklc.h"

namespace oklt {

/* ---- errors ---------------------------------------------------------------------- */

namespace {

class Category : public std::error_category {
  public:
    const char *name() const noexcept override { return "oklt"; }
    std::string message(int e) const override
    {
        switch (static_cast<ErrorCode>(e)) {
        case ErrorCode::kernel: return "the kernel has errors";
        case ErrorCode::backend: return "unknown backend";
        case ErrorCode::io: return "a file cannot be read or written";
        case ErrorCode::out_of_memory: return "out of memory";
        }
        return "unknown error";
    }
};

}  // namespace

const std::error_category &category()
{
    static const Category c;
    return c;
}

std::error_code make_error_code(ErrorCode e)
{
    return {static_cast<int>(e), category()};
}

/* ---- backends -------------------------------------------------------------------- */

namespace {

struct BackendName {
    TargetBackend backend;
    const char *name;
    oklc_backend oklc;
};

const BackendName backends[] = {
    {TargetBackend::SERIAL, "serial", OKLC_BACKEND_SERIAL},
    {TargetBackend::OPENMP, "openmp", OKLC_BACKEND_OPENMP},
    {TargetBackend::CUDA, "cuda", OKLC_BACKEND_CUDA},
    {TargetBackend::HIP, "hip", OKLC_BACKEND_HIP},
    {TargetBackend::DPCPP, "dpcpp", OKLC_BACKEND_DPCPP},
    {TargetBackend::_LAUNCHER, "launcher", OKLC_BACKEND_CUDA},
};

const BackendName *find(TargetBackend b)
{
    for (const BackendName &n : backends)
        if (n.backend == b)
            return &n;
    return nullptr;
}

}  // namespace

tl::expected<TargetBackend, std::string> backendFromString(const std::string &type)
{
    std::string lower;
    for (char ch : type)
        lower += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    for (const BackendName &n : backends)
        if (lower == n.name)
            return n.backend;
    return tl::unexpected("unknown backend '" + type +
                          "' (serial, openmp, cuda, hip, dpcpp, launcher)");
}

std::string backendToString(TargetBackend backend)
{
    const BackendName *n = find(backend);
    return n ? n->name : "";
}

bool isHostCategory(TargetBackend backend)
{
    return backend == TargetBackend::SERIAL || backend == TargetBackend::OPENMP;
}

bool isDeviceCategory(TargetBackend backend)
{
    return backend == TargetBackend::CUDA || backend == TargetBackend::HIP ||
           backend == TargetBackend::DPCPP;
}

/* ---- the calls --------------------------------------------------------------------- */

namespace {

using Context = std::unique_ptr<oklc_ctx, decltype(&oklc_ctx_free)>;

std::vector<Error> one_error(ErrorCode ec, std::string desc)
{
    return {Error{make_error_code(ec), std::move(desc), {}}};
}

/* A context with the input's options; NULL when none can be made. */
Context context(const UserInput &in, const BackendName &b)
{
    Context c(oklc_ctx_new(), oklc_ctx_free);
    if (!c)
        return c;
    oklc_set_convention(c.get(), OKLC_CONVENTION_OCCA);
    oklc_set_backend(c.get(), b.oklc);
    for (const std::string &d : in.defines)
        oklc_define(c.get(), d.c_str());
    for (const std::filesystem::path &dir : in.includeDirectories)
        oklc_include_path(c.get(), dir.c_str());
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (!ec)
        oklc_include_path(c.get(), cwd.c_str());
    for (const auto &h : in.headers)
        oklc_add_header(c.get(), h.first.c_str(), h.second.data(), h.second.size());
    return c;
}

/* The context's errors, each with the notes that follow it. */
std::vector<Error> errors(oklc_ctx *c)
{
    std::vector<Error> out;
    bool in_error = false;
    oklc_diag_info info;
    for (size_t i = 0; oklc_diag_get(c, i, &info); i++) {
        const char *t = oklc_diag_text(c, i);
        std::string desc = t ? t : info.message;
        if (info.level == OKLC_ERROR) {
            bool oom = !strcmp(info.message, "out of memory");
            out.push_back(Error{make_error_code(oom ? ErrorCode::out_of_memory : ErrorCode::kernel),
                                std::move(desc), {}});
            in_error = true;
        } else if (info.level == OKLC_NOTE && in_error) {
            out.back().desc += desc;
        } else {
            in_error = false;
        }
    }
    if (out.empty())    /* a failure without an error message: never a silent one */
        out = one_error(ErrorCode::kernel, "oklc: error: the kernel could not be transpiled\n");
    return out;
}

std::string path_of(const UserInput &in)
{
    return in.sourcePath.empty() ? std::string("<source>") : in.sourcePath.string();
}

using Stage = bool (*)(oklc_ctx *, const char *, const char *, size_t, unsigned);
using Part = const char *(*)(oklc_ctx *, size_t *);

/* A stage of oklc on the input, in a context of its own: the context, or
 * NULL with the errors. */
Context stage(const UserInput &in, const BackendName &b, Stage run, std::vector<Error> &errs)
{
    Context c = context(in, b);
    if (!c) {
        errs = one_error(ErrorCode::out_of_memory, "oklc: error: out of memory\n");
    } else if (!run(c.get(), path_of(in).c_str(), in.source.data(), in.source.size(), 0)) {
        errs = errors(c.get());
        c.reset();
    }
    return c;
}

std::string part(oklc_ctx *c, Part get)
{
    size_t len;
    const char *s = get(c, &len);
    return s ? std::string(s, len) : std::string();
}

bool normalized(const UserInput &in, const BackendName &b, UserOutput &out,
                std::vector<Error> &errs)
{
    Context c = stage(in, b, oklc_normalize_buffer, errs);
    if (c)
        out.normalized.source = part(c.get(), oklc_output);
    return c != nullptr;
}

bool transpiled(const UserInput &in, const BackendName &b, UserOutput &out,
                std::vector<Error> &errs)
{
    Context c = stage(in, b, oklc_transpile_buffer, errs);
    if (!c)
        return false;
    bool launcher_only = b.backend == TargetBackend::_LAUNCHER;
    (launcher_only ? out.kernel.source : out.launcher.source) = part(c.get(), oklc_launcher);
    (launcher_only ? out.kernel.metadata : out.launcher.metadata) =
        part(c.get(), oklc_launcher_metadata);
    if (!launcher_only) {
        out.kernel.source = part(c.get(), oklc_output);
        out.kernel.metadata = part(c.get(), oklc_metadata);
    }
    return true;
}

UserResult run(const UserInput &in, bool normalize, bool transpile)
{
    const BackendName *b = find(in.backend);
    if (!b)
        return tl::unexpected(one_error(ErrorCode::backend, "oklc: error: unknown backend " +
                                        std::to_string(static_cast<int>(in.backend)) + "\n"));
    UserOutput out;
    std::vector<Error> errs;
    if (normalize && !normalized(in, *b, out, errs))
        return tl::unexpected(std::move(errs));
    if (transpile && !transpiled(in, *b, out, errs))
        return tl::unexpected(std::move(errs));
    return out;
}

}  // namespace

UserResult normalize(UserInput input)
{
    return run(input, true, false);
}

UserResult transpile(UserInput input)
{
    return run(input, false, true);
}

UserResult normalizeAndTranspile(UserInput input)
{
    return run(input, true, true);
}

/* ---- files ------------------------------------------------------------------------ */

namespace util {

tl::expected<std::string, int> readFileAsStr(const std::filesystem::path &path)
{
    std::unique_ptr<FILE, decltype(&fclose)> f(fopen(path.c_str(), "rb"), fclose);
    if (!f)
        return tl::unexpected(errno);
    std::string s;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f.get())) > 0)
        s.append(buf, n);
    if (ferror(f.get()))
        return tl::unexpected(errno ? errno : EIO);
    return s;
}

tl::expected<void, int> writeFileAsStr(const std::filesystem::path &path,
                                       std::string_view content)
{
    FILE *f = fopen(path.c_str(), "wb");
    if (!f)
        return tl::unexpected(errno);
    bool ok = fwrite(content.data(), 1, content.size(), f) == content.size();
    int err = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok)
        return tl::unexpected(err ? err : EIO);
    return {};
}

}  // namespace util

}  // namespace oklt
