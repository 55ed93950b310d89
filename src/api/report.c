/* report.c - ktune_report_write (include/ktune.h): a results database as
 * one self-contained HTML page.  The rows are read once, sorted into
 * kernels and runs (kernel, device, problem; the order measured kept),
 * the stored time/energy fronts marked, and each kernel's figures written
 * (report_fig.c, report_roof.c).  The page fetches nothing and needs no
 * script; the one it carries only counts what the browser drew, for the
 * headless check in tests/cli/report.sh. */
#include "api/report.h"
#include "core/util.h"
#include "store/db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The rows read, growing. */
typedef struct rp_rows {
    kt_rp_row *v;
    size_t n, cap;
    bool nomem;
} rp_rows;

void ktune_report_opts_init(ktune_report_opts *o)
{
    if (!o)
        return;
    *o = (ktune_report_opts){.size = sizeof *o};
}

static void row_clear(kt_rp_row *r)
{
    free(r->kernel);
    free(r->device);
    free(r->problem);
    free(r->config);
}

static int collect(void *user, const kt_db_row *row)
{
    rp_rows *rs = user;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 256;
        kt_rp_row *v = realloc(rs->v, cap * sizeof *v);
        if (!v)
            return rs->nomem = true;
        rs->v = v, rs->cap = cap;
    }
    kt_rp_row *r = &rs->v[rs->n];
    *r = (kt_rp_row){kt_strdup(row->kernel), kt_strdup(row->device), kt_strdup(row->problem),
                     kt_strdup(row->config), row->result.status, row->result.time_ms,
                     row->result.energy_j, rs->n, false, row->result.power_w};
    if (!r->kernel || !r->device || !r->problem || !r->config) {
        row_clear(r);
        return rs->nomem = true;
    }
    rs->n++;
    return 0;
}

/* Kernel, device, problem; then the order measured. */
static int cmp_group(const kt_rp_row *a, const char *kernel, const char *device,
                     const char *problem)
{
    int c = strcmp(a->kernel, kernel);
    if (!c)
        c = strcmp(a->device, device);
    return c ? c : strcmp(a->problem, problem);
}

static int cmp_rows(const void *pa, const void *pb)
{
    const kt_rp_row *a = pa, *b = pb;
    int c = cmp_group(a, b->kernel, b->device, b->problem);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

/* Mark a stored front's row: the first row of its group by binary search,
 * then its configuration within the group. */
static int mark_front(void *user, const kt_db_row *row)
{
    rp_rows *rs = user;
    size_t lo = 0, hi = rs->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_group(&rs->v[mid], row->kernel, row->device, row->problem) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < rs->n && !cmp_group(&rs->v[lo], row->kernel, row->device, row->problem); lo++)
        if (strcmp(rs->v[lo].config, row->config) == 0)
            rs->v[lo].front = true;
    return 0;
}

static int read_rows(kt_db *db, const char *kernel, rp_rows *rs, kt_diag *diag)
{
    kt_db_filter f = {.kernel = kernel};
    int rc = kt_db_list(db, &f, collect, rs, diag);
    if (rc == KT_OK && rs->nomem)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK)
        return rc;
    if (rs->n == 0)
        return kernel ? kt_fail(diag, KT_ENOTFOUND, "no rows of kernel '%s'", kernel)
                      : kt_fail(diag, KT_ENOTFOUND, "the database holds no rows");
    qsort(rs->v, rs->n, sizeof *rs->v, cmp_rows);
    return kt_db_front(db, &f, mark_front, rs, diag);
}

/* ------------------------------------------------------------ the page */

static const char STYLE[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1180px;"
    "color:#222;padding:0 1em}\n"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.05em}\n"
    ".figs{display:flex;flex-wrap:wrap;gap:12px}\n"
    "figure{margin:0;border:1px solid #ddd;padding:6px;max-width:560px}\n"
    "figcaption{font-size:12px;color:#444;max-width:560px}\n"
    "svg{font:11px sans-serif;max-width:100%;height:auto}svg .axis{font-size:12px}\n"
    ".frame{fill:none;stroke:#888}.grid{stroke:#eee}.line{fill:none;stroke-width:1.5}\n"
    ".note{color:#855;font-style:italic}table{border-collapse:collapse}"
    "td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}\n";

/* Counts each figure's data points as the browser laid them out (a
 * non-empty box), and any script error, into #ktune-check. */
static const char SCRIPT[] =
    "<script>\n"
    "(function(){var errs=[];window.addEventListener('error',function(e){"
    "errs.push(String(e.message));});\n"
    "window.addEventListener('load',function(){var out=[];"
    "document.querySelectorAll('figure.fig').forEach(function(f){var n=0;"
    "f.querySelectorAll('.pt').forEach(function(p){var b=p.getBBox();"
    "if(b.width>0&&b.height>0)n++;});f.setAttribute('data-drawn',n);"
    "out.push(f.id+' '+f.getAttribute('data-kind')+' drawn='+n);});"
    "var c=document.getElementById('ktune-check');c.setAttribute('data-errors',errs.length);"
    "c.textContent=out.join('\\n')+'\\nerrors='+errs.length+(errs.length?' '+errs.join('; '):'');"
    "});})();\n"
    "</script>\n";

void kt_rp_fig_begin(kt_rp *rp, const char *kind)
{
    fprintf(rp->f, "<figure class=\"fig\" id=\"fig-%zu\" data-kind=\"%s\">\n", ++rp->nfig, kind);
}

void kt_rp_fig_end(kt_rp *rp, size_t npts, const char *caption)
{
    fprintf(rp->f, "<figcaption data-points=\"%zu\">", npts);
    kt_html_text(rp->f, caption);
    fputs("</figcaption></figure>\n", rp->f);
}

void kt_rp_note(kt_rp *rp, const char *text)
{
    fputs("<p class=\"note\">", rp->f);
    kt_html_text(rp->f, text);
    fputs("</p>\n", rp->f);
}

static void page_head(FILE *f, const ktune_report_opts *o, const rp_rows *rs)
{
    const char *title = o->title ? o->title : "ktune report";
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
    kt_html_text(f, title);
    fprintf(f, "</title>\n<style>\n%s</style></head><body>\n<h1>", STYLE);
    kt_html_text(f, title);
    fprintf(f, "</h1>\n<p>%zu measurements", rs->n);
    if (o->source) {
        fputs(" from <code>", f);
        kt_html_text(f, o->source);
        fputs("</code>", f);
    }
    fprintf(f, ", drawn by ktune %s on %s.  Hover over a point for its "
            "configuration.</p>\n", KTUNE_VERSION, when);
}

/* --------------------------------------------------------- the kernels */

/* Runs of k in descending size (stable: ties in the order of the rows). */
static int cmp_runs(const void *pa, const void *pb)
{
    const kt_rp_run *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? 1 : -1;
    return (a->rows > b->rows) - (a->rows < b->rows);
}

static int kernel_runs(kt_rp_kernel *k, kt_diag *diag)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++)
        n += i == 0 || cmp_group(&k->rows[i], k->rows[i - 1].kernel, k->rows[i - 1].device,
                                 k->rows[i - 1].problem) != 0;
    if (!(k->runs = calloc(n, sizeof *k->runs)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < k->n; i++) {
        if (i == 0 || cmp_group(&k->rows[i], k->rows[i - 1].kernel, k->rows[i - 1].device,
                                k->rows[i - 1].problem) != 0)
            k->runs[k->nruns++].rows = &k->rows[i];
        k->runs[k->nruns - 1].n++;
    }
    qsort(k->runs, k->nruns, sizeof *k->runs, cmp_runs);
    return KT_OK;
}

static void run_heading(kt_rp *rp, const kt_rp_run *run)
{
    fputs("<h3>", rp->f);
    kt_html_text(rp->f, run->rows[0].device);
    fputs(" &middot; ", rp->f);
    kt_html_text(rp->f, run->rows[0].problem[0] ? run->rows[0].problem : "(no problem "
                                                                          "parameters)");
    fprintf(rp->f, " &middot; %zu measurements</h3>\n<div class=\"figs\">\n", run->n);
}

/* The runs past max: one line each. */
static void runs_listed(kt_rp *rp, const kt_rp_kernel *k, size_t max)
{
    if (k->nruns <= max)
        return;
    fprintf(rp->f, "<p>%zu more runs, not drawn (ktune report --runs N draws more):</p>"
            "<table><tr><th>device</th><th>problem</th><th>measurements</th></tr>\n",
            k->nruns - max);
    for (size_t r = max; r < k->nruns; r++) {
        fputs("<tr><td>", rp->f);
        kt_html_text(rp->f, k->runs[r].rows[0].device);
        fputs("</td><td>", rp->f);
        kt_html_text(rp->f, k->runs[r].rows[0].problem);
        fprintf(rp->f, "</td><td>%zu</td></tr>\n", k->runs[r].n);
    }
    fputs("</table>\n", rp->f);
}

static void kernel_section(kt_rp *rp, const kt_rp_kernel *k, const ktune_report_opts *o)
{
    fprintf(rp->f, "<section class=\"kernel\"><h2>kernel ");
    kt_html_text(rp->f, k->name);
    fprintf(rp->f, "</h2>\n<p>%zu measurements in %zu run%s (a run: one device and "
            "problem).</p>\n<div class=\"figs\">\n", k->n, k->nruns, k->nruns == 1 ? "" : "s");
    kt_rp_status(rp, k);
    kt_rp_roofline(rp, k);
    kt_rp_analysis(rp, k);
    fputs("</div>\n", rp->f);
    size_t max = o->max_runs ? o->max_runs : 8;
    for (size_t r = 0; r < k->nruns && r < max; r++) {
        run_heading(rp, &k->runs[r]);
        kt_rp_convergence(rp, &k->runs[r]);
        kt_rp_front(rp, &k->runs[r]);
        kt_rp_map(rp, k, &k->runs[r]);
        fputs("</div>\n", rp->f);
    }
    runs_listed(rp, k, max);
    fputs("</section>\n", rp->f);
}

static const kt_spec *spec_of(const ktune_report_opts *o, const char *kernel)
{
    for (size_t i = 0; o->specs && i < o->nspecs; i++)
        if (o->specs[i] && strcmp(ktune_spec_name(o->specs[i]), kernel) == 0)
            return o->specs[i];
    return NULL;
}

static int write_kernels(kt_rp *rp, const rp_rows *rs, const ktune_report_opts *o,
                         kt_diag *diag)
{
    for (size_t i = 0, j; i < rs->n; i = j) {
        for (j = i + 1; j < rs->n && strcmp(rs->v[j].kernel, rs->v[i].kernel) == 0; j++)
            ;
        rp->nkernels++;
        kt_rp_kernel k = {.name = rs->v[i].kernel, .rows = &rs->v[i], .n = j - i,
                          .spec = spec_of(o, rs->v[i].kernel)};
        int rc = kernel_runs(&k, diag);
        if (rc == KT_OK)
            kernel_section(rp, &k, o);
        rp->nruns += k.nruns;
        free(k.runs);
        if (rc != KT_OK)
            return rc;
    }
    return KT_OK;
}

int ktune_report_write(ktune_db *db, const ktune_report_opts *o, FILE *out,
                       ktune_report_info *info, ktune_diag *diag)
{
    if (info)
        *info = (ktune_report_info){0};
    ktune_report_opts dflt;
    ktune_report_opts_init(&dflt);
    if (!db || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_report_write: %s is NULL", db ? "out" : "db");
    if (o && o->size != sizeof *o)
        return kt_fail(diag, KT_EINVAL, "ktune_report_write: a ktune_report_opts of %zu "
                       "bytes, not %zu (fill it with ktune_report_opts_init)", o->size,
                       sizeof *o);
    o = o ? o : &dflt;
    rp_rows rs = {0};
    int rc = read_rows(db, o->kernel, &rs, diag);
    if (rc == KT_OK) {
        kt_rp rp = {.f = out, .db = db, .analysis = !o->no_analysis};
        page_head(out, o, &rs);
        rc = write_kernels(&rp, &rs, o, diag);
        if (info)
            *info = (ktune_report_info){rs.n, rp.nkernels, rp.nruns, rp.nfig};
        fprintf(out, "<pre id=\"ktune-check\" hidden></pre>\n%s</body></html>\n",
                o->no_script ? "" : SCRIPT);
    }
    for (size_t i = 0; i < rs.n; i++)
        row_clear(&rs.v[i]);
    free(rs.v);
    if (rc == KT_OK && (fflush(out) != 0 || ferror(out)))
        rc = kt_fail(diag, KT_EIO, "cannot write the report");
    return rc;
}
