/*
 * plugin.h - plugins (include/oklc/plugin.h, docs/plugins.md), inside.
 *
 *   plugin.c  loading (dlopen, the ABI version, the entry), the host's
 *             table, the stages plugins add, their attributes placed,
 *             checked and written, their backends, the model's view
 *
 * A context loads its own plugins: what one registers lives in that
 * context's registries (attrs.c, backends.c) and arena, and the shared
 * object is closed with the context. Without plugins none of this runs.
 */
#ifndef OKLC_PLUGIN_INTERNAL_H
#define OKLC_PLUGIN_INTERNAL_H

#include "oklc/plugin.h"

#include "../backends/backend.h"

/* Opens a plugin and runs its init (oklc_load_plugin); false after an
 * error, reported. */
OKLC_INTERNAL bool oklc_plugin_load(oklc_ctx *c, const char *path);
/* OKLC_BEFORE_PREPROCESS: the input (*text NULL: read from `path`),
 * replaced by the stages there; false after an error. */
OKLC_INTERNAL bool oklc_plugins_source(oklc_ctx *c, const char *path, const char **text,
                                       size_t *len);
/* The stages at `point` (after normalize, check or transpile) over *text,
 * which the transpile point may replace; the model from the check on. */
OKLC_INTERNAL bool oklc_plugins_after(oklc_ctx *c, oklc_plugin_point point, const Model *m,
                                      const char **text, size_t *len);
/* The plugins' attributes: where each stands (an error where its plugin
 * does not allow it), then their checks. */
OKLC_INTERNAL bool oklc_plugins_check(oklc_ctx *c, const Model *m);
/* What their attributes become on E's backend (before it translates). */
OKLC_INTERNAL void oklc_plugins_emit(Emit *E);
/* The plugins' identities (their content hashes), for the input's hash;
 * NULL without plugins. */
OKLC_INTERNAL const char *oklc_plugins_identity(oklc_ctx *c);
/* Closes the context's plugins (oklc_ctx_free). */
OKLC_INTERNAL void oklc_plugins_unload(oklc_ctx *c);

#endif
