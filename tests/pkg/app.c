/* app.c SPEC - a program outside ktune, built by tests/pkg/install.sh
 * against an installed copy with pkg-config alone: it includes only
 * <ktune.h>, checks that the library it runs with is the header's release,
 * and asks a runtime selector (no database, no model) for SPEC's
 * configuration of a problem: the spec's default, found through the
 * installed library's spec loader and backends. */
#include <ktune.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: app SPEC\n");
        return 2;
    }
    if (strcmp(ktune_version(), KTUNE_VERSION) != 0) {
        fprintf(stderr, "app: library %s, header %s\n", ktune_version(), KTUNE_VERSION);
        return 1;
    }
    ktune_diag diag = {{0}};
    ktune_selector *sel = NULL;
    ktune_choice c;
    int rc = ktune_selector_open(NULL, argv[1], NULL, NULL, NULL, &sel, &diag);
    if (rc == 0)
        rc = ktune_select(sel, "M=64,N=64,K=64", &c, &diag);
    if (rc == 0)
        printf("ktune %s: %s (from the %s)\n", ktune_version(), c.config,
               ktune_source_name(c.source));
    else
        fprintf(stderr, "app: %s: %s\n", ktune_strerror(rc), diag.msg);
    ktune_selector_close(sel);
    return rc != 0;
}
