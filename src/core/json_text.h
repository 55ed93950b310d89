/* json_text.h - a whole JSON text parsed with json-c, and where and why it
 * is not valid JSON, for the one-line errors of the spec loader and the
 * importers. */
#ifndef KT_JSON_TEXT_H
#define KT_JSON_TEXT_H

#include <json-c/json.h>
#include <stddef.h>

/* Why text is not valid JSON, and where (1-based line and column). */
typedef struct kt_json_error {
    size_t line, col;
    const char *why;   /* "unexpected end of file", json-c's reason, ... */
    int nomem;         /* no JSON error: out of memory */
} kt_json_error;

/* The value text (len bytes) holds, with nothing but white space after it;
 * NULL with *err filled when it is not valid JSON or memory ran out. */
json_object *kt_json_parse_text(const char *text, size_t len, kt_json_error *err);

#endif /* KT_JSON_TEXT_H */
