/*
 * libclang.h - libclang, loaded when a kernel is first parsed (libclang.c),
 * not when the library is: a program whose kernels were transpiled ahead
 * of time runs where libclang and LLVM are not installed.
 *
 * Every libclang function src/parse/ calls is in OKLC_LIBCLANG below; a
 * macro of its name makes each call one through the loaded table, so the
 * calls are written as libclang's documentation spells them. A function
 * used without being listed fails to link (liboklc names no libclang
 * symbol): add it here.
 */
#ifndef OKLC_LIBCLANG_H
#define OKLC_LIBCLANG_H

#include <clang-c/Index.h>

#include "base/base.h"

#define OKLC_LIBCLANG(X) \
    X(clang_CXXMethod_isVirtual) \
    X(clang_Cursor_Evaluate) \
    X(clang_Cursor_getArgument) \
    X(clang_Cursor_getNumArguments) \
    X(clang_Cursor_getStorageClass) \
    X(clang_Cursor_getTranslationUnit) \
    X(clang_Cursor_isAnonymous) \
    X(clang_Cursor_isBitField) \
    X(clang_Cursor_isNull) \
    X(clang_Cursor_isVariadic) \
    X(clang_EvalResult_dispose) \
    X(clang_EvalResult_getAsLongLong) \
    X(clang_EvalResult_getAsUnsigned) \
    X(clang_EvalResult_getKind) \
    X(clang_EvalResult_isUnsignedInt) \
    X(clang_Location_isFromMainFile) \
    X(clang_Type_getSizeOf) \
    X(clang_Type_visitFields) \
    X(clang_createIndex) \
    X(clang_defaultSaveOptions) \
    X(clang_disposeDiagnostic) \
    X(clang_disposeIndex) \
    X(clang_disposeString) \
    X(clang_disposeTokens) \
    X(clang_disposeTranslationUnit) \
    X(clang_equalCursors) \
    X(clang_getArrayElementType) \
    X(clang_getArraySize) \
    X(clang_getCString) \
    X(clang_getCanonicalType) \
    X(clang_getChildDiagnostics) \
    X(clang_getClangVersion) \
    X(clang_getCursorDefinition) \
    X(clang_getCursorExtent) \
    X(clang_getCursorKind) \
    X(clang_getCursorLocation) \
    X(clang_getCursorReferenced) \
    X(clang_getCursorResultType) \
    X(clang_getCursorSemanticParent) \
    X(clang_getCursorSpelling) \
    X(clang_getCursorType) \
    X(clang_getDiagnostic) \
    X(clang_getDiagnosticInSet) \
    X(clang_getDiagnosticLocation) \
    X(clang_getDiagnosticSeverity) \
    X(clang_getDiagnosticSpelling) \
    X(clang_getEnumDeclIntegerType) \
    X(clang_getFileLocation) \
    X(clang_getFileName) \
    X(clang_getNullCursor) \
    X(clang_getNumDiagnostics) \
    X(clang_getNumDiagnosticsInSet) \
    X(clang_getPointeeType) \
    X(clang_getRangeEnd) \
    X(clang_getRangeStart) \
    X(clang_getSpellingLocation) \
    X(clang_getToken) \
    X(clang_getTokenSpelling) \
    X(clang_getTranslationUnitCursor) \
    X(clang_getTypeDeclaration) \
    X(clang_getTypeSpelling) \
    X(clang_getTypedefDeclUnderlyingType) \
    X(clang_isConstQualifiedType) \
    X(clang_isCursorDefinition) \
    X(clang_isExpression) \
    X(clang_isStatement) \
    X(clang_parseTranslationUnit2) \
    X(clang_saveTranslationUnit) \
    X(clang_visitChildren)

typedef struct LibClang {
#define X(f) __typeof__(f) *f;
    OKLC_LIBCLANG(X)
#undef X
} LibClang;

OKLC_INTERNAL extern LibClang oklc_libclang;

/* Loads libclang once (OKLC_LIBCLANG names the file; else the one the
 * build found, then its soname); false with the reason in *why (static
 * text) when it cannot be. Thread-safe. */
OKLC_INTERNAL bool oklc_libclang_load(const char **why);

/* Each name: its entry of the table (the macro's name inside its own
 * expansion is left as it is). Not in libclang.c, which fills the table. */
#ifndef OKLC_LIBCLANG_LOADER
#define clang_CXXMethod_isVirtual (oklc_libclang.clang_CXXMethod_isVirtual)
#define clang_Cursor_Evaluate (oklc_libclang.clang_Cursor_Evaluate)
#define clang_Cursor_getArgument (oklc_libclang.clang_Cursor_getArgument)
#define clang_Cursor_getNumArguments (oklc_libclang.clang_Cursor_getNumArguments)
#define clang_Cursor_getStorageClass (oklc_libclang.clang_Cursor_getStorageClass)
#define clang_Cursor_getTranslationUnit (oklc_libclang.clang_Cursor_getTranslationUnit)
#define clang_Cursor_isAnonymous (oklc_libclang.clang_Cursor_isAnonymous)
#define clang_Cursor_isBitField (oklc_libclang.clang_Cursor_isBitField)
#define clang_Cursor_isNull (oklc_libclang.clang_Cursor_isNull)
#define clang_Cursor_isVariadic (oklc_libclang.clang_Cursor_isVariadic)
#define clang_EvalResult_dispose (oklc_libclang.clang_EvalResult_dispose)
#define clang_EvalResult_getAsLongLong (oklc_libclang.clang_EvalResult_getAsLongLong)
#define clang_EvalResult_getAsUnsigned (oklc_libclang.clang_EvalResult_getAsUnsigned)
#define clang_EvalResult_getKind (oklc_libclang.clang_EvalResult_getKind)
#define clang_EvalResult_isUnsignedInt (oklc_libclang.clang_EvalResult_isUnsignedInt)
#define clang_Location_isFromMainFile (oklc_libclang.clang_Location_isFromMainFile)
#define clang_Type_getSizeOf (oklc_libclang.clang_Type_getSizeOf)
#define clang_Type_visitFields (oklc_libclang.clang_Type_visitFields)
#define clang_createIndex (oklc_libclang.clang_createIndex)
#define clang_defaultSaveOptions (oklc_libclang.clang_defaultSaveOptions)
#define clang_disposeDiagnostic (oklc_libclang.clang_disposeDiagnostic)
#define clang_disposeIndex (oklc_libclang.clang_disposeIndex)
#define clang_disposeString (oklc_libclang.clang_disposeString)
#define clang_disposeTokens (oklc_libclang.clang_disposeTokens)
#define clang_disposeTranslationUnit (oklc_libclang.clang_disposeTranslationUnit)
#define clang_equalCursors (oklc_libclang.clang_equalCursors)
#define clang_getArrayElementType (oklc_libclang.clang_getArrayElementType)
#define clang_getArraySize (oklc_libclang.clang_getArraySize)
#define clang_getCString (oklc_libclang.clang_getCString)
#define clang_getCanonicalType (oklc_libclang.clang_getCanonicalType)
#define clang_getChildDiagnostics (oklc_libclang.clang_getChildDiagnostics)
#define clang_getClangVersion (oklc_libclang.clang_getClangVersion)
#define clang_getCursorDefinition (oklc_libclang.clang_getCursorDefinition)
#define clang_getCursorExtent (oklc_libclang.clang_getCursorExtent)
#define clang_getCursorKind (oklc_libclang.clang_getCursorKind)
#define clang_getCursorLocation (oklc_libclang.clang_getCursorLocation)
#define clang_getCursorReferenced (oklc_libclang.clang_getCursorReferenced)
#define clang_getCursorResultType (oklc_libclang.clang_getCursorResultType)
#define clang_getCursorSemanticParent (oklc_libclang.clang_getCursorSemanticParent)
#define clang_getCursorSpelling (oklc_libclang.clang_getCursorSpelling)
#define clang_getCursorType (oklc_libclang.clang_getCursorType)
#define clang_getDiagnostic (oklc_libclang.clang_getDiagnostic)
#define clang_getDiagnosticInSet (oklc_libclang.clang_getDiagnosticInSet)
#define clang_getDiagnosticLocation (oklc_libclang.clang_getDiagnosticLocation)
#define clang_getDiagnosticSeverity (oklc_libclang.clang_getDiagnosticSeverity)
#define clang_getDiagnosticSpelling (oklc_libclang.clang_getDiagnosticSpelling)
#define clang_getEnumDeclIntegerType (oklc_libclang.clang_getEnumDeclIntegerType)
#define clang_getFileLocation (oklc_libclang.clang_getFileLocation)
#define clang_getFileName (oklc_libclang.clang_getFileName)
#define clang_getNullCursor (oklc_libclang.clang_getNullCursor)
#define clang_getNumDiagnostics (oklc_libclang.clang_getNumDiagnostics)
#define clang_getNumDiagnosticsInSet (oklc_libclang.clang_getNumDiagnosticsInSet)
#define clang_getPointeeType (oklc_libclang.clang_getPointeeType)
#define clang_getRangeEnd (oklc_libclang.clang_getRangeEnd)
#define clang_getRangeStart (oklc_libclang.clang_getRangeStart)
#define clang_getSpellingLocation (oklc_libclang.clang_getSpellingLocation)
#define clang_getToken (oklc_libclang.clang_getToken)
#define clang_getTokenSpelling (oklc_libclang.clang_getTokenSpelling)
#define clang_getTranslationUnitCursor (oklc_libclang.clang_getTranslationUnitCursor)
#define clang_getTypeDeclaration (oklc_libclang.clang_getTypeDeclaration)
#define clang_getTypeSpelling (oklc_libclang.clang_getTypeSpelling)
#define clang_getTypedefDeclUnderlyingType (oklc_libclang.clang_getTypedefDeclUnderlyingType)
#define clang_isConstQualifiedType (oklc_libclang.clang_isConstQualifiedType)
#define clang_isCursorDefinition (oklc_libclang.clang_isCursorDefinition)
#define clang_isExpression (oklc_libclang.clang_isExpression)
#define clang_isStatement (oklc_libclang.clang_isStatement)
#define clang_parseTranslationUnit2 (oklc_libclang.clang_parseTranslationUnit2)
#define clang_saveTranslationUnit (oklc_libclang.clang_saveTranslationUnit)
#define clang_visitChildren (oklc_libclang.clang_visitChildren)
#endif

#endif
