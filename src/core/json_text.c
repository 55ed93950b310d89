/* json_text.c - a whole JSON text parsed, with the position of an error. */
#include "core/json_text.h"

#include <ctype.h>

json_object *kt_json_parse_text(const char *text, size_t len, kt_json_error *err)
{
    *err = (kt_json_error){.line = 1, .col = 1, .why = "out of memory", .nomem = 1};
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return NULL;
    err->nomem = 0;
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (root && e == json_tokener_success) {
        while (end < len && isspace((unsigned char)text[end]))
            end++;
        if (end == len)
            return root;
    }
    json_object_put(root);
    for (size_t i = 0; i < end && i < len; i++, err->col++)
        if (text[i] == '\n')
            err->line++, err->col = 0;
    err->why = e == json_tokener_success    ? "unexpected text after the JSON value"
               : e == json_tokener_continue ? "unexpected end of file"
                                            : json_tokener_error_desc(e);
    return NULL;
}
