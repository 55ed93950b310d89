/* xgb_check.c - is a booster's UBJSON safe to hand to XGBoost?
 *
 * XGBoost 1.7's model reader (Debian 12's libxgboost 1.7.4) trusts its
 * input: the UBJSON reader follows every length and count without looking
 * at the bytes left, and the tree loader and predictor trust what they
 * read: a parent index is used before it is checked, a node's right child
 * is taken to be its left child + 1, a split's feature indexes the row
 * unchecked, tree_info picks an output slot unchecked, and tree ids and
 * counts are believed.  A model file is shared between users, so before
 * any byte reaches XGBoost the whole model is parsed by ubj.c and checked
 * here against the layout ktune itself writes (gbtree, "multi:softprob" or
 * "reg:squarederror", numerical splits, no feature names), with the shape
 * the caller expects: num_feature features and num_class classes.  Each
 * tree must be a tree: every live node reached once from the root, its
 * children adjacent and in range, parent links that agree, split features
 * below num_feature, finite numbers.  The check is a whitelist: a key,
 * type or value that ktune's models never hold is refused, even where
 * XGBoost might cope. */
#include "core/util.h"
#include "ml/ubj.h"
#include "ml/xgb.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROOT_PARENT = 0x7fffffff, DELETED = 0x7fffffff };

typedef struct check {
    kt_diag *diag;
    int rc;
    size_t nf, nclass, groups;
    char where[48];   /* "", or the tree being checked */
} check;

static bool bad(check *c, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    c->rc = kt_fail(c->diag, KT_EFORMAT, "xgboost model: %s%s%s", c->where,
                    c->where[0] ? ": " : "", why);
    return false;
}

/* obj is an object with exactly these keys (no duplicates: ubj.c). */
static bool keys_are(check *c, const ubj_value *obj, const char *what,
                     const char *const *keys)
{
    if (!obj || obj->kind != UBJ_OBJECT)
        return bad(c, "%s is not an object", what);
    size_t n = 0;
    for (; keys[n]; n++)
        if (!kt_ubj_get(obj, keys[n]))
            return bad(c, "%s has no \"%s\"", what, keys[n]);
    return obj->n == n || bad(c, "%s has keys ktune does not write", what);
}

/* A parameter (XGBoost keeps them as strings) equal to a whole number. */
static bool param_is(check *c, const ubj_value *obj, const char *key, uint64_t want)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, want);
    return kt_ubj_is(kt_ubj_get(obj, key), text) ||
           bad(c, "%s is not \"%s\"", key, text);
}

/* A parameter that is a finite decimal number. */
static bool param_finite(check *c, const ubj_value *obj, const char *key)
{
    const ubj_value *v = kt_ubj_get(obj, key);
    char text[32];
    bool ok = v && v->kind == UBJ_STRING && v->n > 0 && v->n < sizeof text;
    if (ok) {
        memcpy(text, v->data, v->n);
        text[v->n] = '\0';
        char *end;
        ok = strspn(text, "0123456789.eE+-") == v->n && isfinite(strtod(text, &end)) &&
             *end == '\0';
    }
    return ok || bad(c, "%s is not a finite number", key);
}

static bool empty_array(check *c, const ubj_value *v, const char *what)
{
    return (v->kind == UBJ_ARRAY && v->n == 0) || bad(c, "%s is not empty", what);
}

/* A typed array of n elements of one type. */
static const ubj_value *typed(check *c, const ubj_value *obj, const char *key, char type,
                              size_t n)
{
    const ubj_value *v = kt_ubj_get(obj, key);
    if (v->kind != UBJ_TYPED || v->type != type || v->n != n) {
        bad(c, "%s is not %zu values of type '%c'", key, n, type);
        return NULL;
    }
    return v;
}

static bool finite_floats(check *c, const ubj_value *tree, const char *key, size_t n)
{
    const ubj_value *v = typed(c, tree, key, 'd', n);
    for (size_t i = 0; v && i < n; i++)
        if (!isfinite(kt_ubj_float_at(v, i)))
            return bad(c, "%s[%zu] is not finite", key, i);
    return v != NULL;
}

/* ------------------------------------------------------------- one tree */

/* A tree's arrays, each num_nodes long. */
typedef struct nodes {
    size_t n;
    const ubj_value *left, *right, *parent, *feature, *dleft;
} nodes;

static bool deleted(const nodes *t, size_t i)
{
    return kt_ubj_int_at(t->feature, i) == DELETED && kt_ubj_int_at(t->dleft, i) == 1;
}

/* Node i's children, if it has any, as the predictor will follow them. */
static bool children_ok(check *c, const nodes *t, size_t i, uint8_t *seen)
{
    int64_t l = kt_ubj_int_at(t->left, i), r = kt_ubj_int_at(t->right, i);
    int64_t f = kt_ubj_int_at(t->feature, i);
    if (f < 0 || (uint64_t)f >= c->nf)
        return bad(c, "node %zu splits on feature %" PRId64 " of %zu", i, f, c->nf);
    if (l == -1 && r == -1)
        return true; /* a leaf */
    if (l < 1 || (uint64_t)l + 1 >= t->n || r != l + 1)
        return bad(c, "node %zu has children %" PRId64 " and %" PRId64 " (of %zu nodes)", i,
                   l, r, t->n);
    for (int64_t k = l; k <= r; k++) {
        if (seen[k] || deleted(t, (size_t)k))
            return bad(c, "node %" PRId64 " is reached twice, or deleted", k);
        if (kt_ubj_int_at(t->parent, (size_t)k) != (int64_t)i)
            return bad(c, "node %" PRId64 "'s parent is not %zu", k, i);
        seen[k] = 1;
    }
    return true;
}

/* Every live node reached once from the root (so no cycle, no orphan);
 * *ndeleted: the deleted nodes XGBoost will count. */
static bool tree_shape(check *c, const nodes *t, size_t *ndeleted)
{
    uint8_t *seen = calloc(t->n, 1);
    size_t *queue = malloc(t->n * sizeof *queue), head = 0, tail = 0;
    bool ok = seen && queue;
    if (!ok)
        c->rc = kt_fail(c->diag, KT_ENOMEM, "out of memory");
    if (ok && (kt_ubj_int_at(t->parent, 0) != ROOT_PARENT || deleted(t, 0)))
        ok = bad(c, "the root has a parent or is deleted");
    for (size_t i = 1; ok && i < t->n; i++) { /* XGBoost follows every parent link */
        int64_t p = kt_ubj_int_at(t->parent, i);
        if (p < 0 || (uint64_t)p >= t->n)
            ok = bad(c, "node %zu's parent %" PRId64 " is out of range", i, p);
    }
    if (ok) {
        seen[0] = 1;
        queue[tail++] = 0;
    }
    while (ok && head < tail) {
        size_t i = queue[head++];
        ok = children_ok(c, t, i, seen);
        for (int64_t k = kt_ubj_int_at(t->left, i); ok && k >= 0 && k <= kt_ubj_int_at(t->right, i);
             k++)
            queue[tail++] = (size_t)k;
    }
    *ndeleted = 0;
    for (size_t i = 0; ok && i < t->n; i++) {
        *ndeleted += deleted(t, i);
        if (!seen[i] && !deleted(t, i))
            ok = bad(c, "node %zu is not reached from the root", i);
    }
    free(seen);
    free(queue);
    return ok;
}

static const char *const TREE_KEYS[] = {
    "base_weights", "categories", "categories_nodes", "categories_segments",
    "categories_sizes", "default_left", "id", "left_children", "loss_changes", "parents",
    "right_children", "split_conditions", "split_indices", "split_type", "sum_hessian",
    "tree_param", NULL};
static const char *const TREE_PARAM_KEYS[] = {"num_deleted", "num_feature", "num_nodes",
                                              "size_leaf_vector", NULL};

/* Numerical splits only: the categorical arrays are empty. */
static bool no_categories(check *c, const ubj_value *tree, size_t n)
{
    const ubj_value *type = typed(c, tree, "split_type", 'U', n);
    for (size_t i = 0; type && i < n; i++)
        if (kt_ubj_int_at(type, i) != 0)
            return bad(c, "node %zu has a categorical split", i);
    return type && typed(c, tree, "categories", 'l', 0) &&
           typed(c, tree, "categories_nodes", 'l', 0) &&
           typed(c, tree, "categories_segments", 'L', 0) &&
           typed(c, tree, "categories_sizes", 'L', 0);
}

static bool check_tree(check *c, const ubj_value *tree, size_t id)
{
    snprintf(c->where, sizeof c->where, "tree %zu", id);
    if (!keys_are(c, tree, "the tree", TREE_KEYS))
        return false;
    const ubj_value *idv = kt_ubj_get(tree, "id"), *left = kt_ubj_get(tree, "left_children");
    if (idv->kind != UBJ_INT || idv->i != (int64_t)id)
        return bad(c, "its id is not %zu", id);
    if (left->kind != UBJ_TYPED || left->n == 0)
        return bad(c, "it has no nodes");
    nodes t = {.n = left->n};
    const ubj_value *param = kt_ubj_get(tree, "tree_param");
    if (!keys_are(c, param, "tree_param", TREE_PARAM_KEYS) ||
        !param_is(c, param, "num_feature", c->nf) || !param_is(c, param, "num_nodes", t.n) ||
        !param_is(c, param, "size_leaf_vector", 0) ||
        !finite_floats(c, tree, "base_weights", t.n) ||
        !finite_floats(c, tree, "loss_changes", t.n) ||
        !finite_floats(c, tree, "sum_hessian", t.n) ||
        !finite_floats(c, tree, "split_conditions", t.n) || !no_categories(c, tree, t.n) ||
        !(t.left = typed(c, tree, "left_children", 'l', t.n)) ||
        !(t.right = typed(c, tree, "right_children", 'l', t.n)) ||
        !(t.parent = typed(c, tree, "parents", 'l', t.n)) ||
        !(t.feature = typed(c, tree, "split_indices", 'l', t.n)) ||
        !(t.dleft = typed(c, tree, "default_left", 'U', t.n)))
        return false;
    for (size_t i = 0; i < t.n; i++)
        if (kt_ubj_int_at(t.dleft, i) > 1)
            return bad(c, "default_left[%zu] is not 0 or 1", i);
    size_t ndeleted;
    return tree_shape(c, &t, &ndeleted) && param_is(c, param, "num_deleted", ndeleted);
}

/* ---------------------------------------------------------- the learner */

static const char *const BOOSTER_KEYS[] = {"model", "name", NULL};
static const char *const MODEL_KEYS[] = {"gbtree_model_param", "tree_info", "trees", NULL};
static const char *const GBTREE_KEYS[] = {"num_parallel_tree", "num_trees",
                                          "size_leaf_vector", NULL};

/* gbtree: whole rounds of one tree per output group, in order. */
static bool check_booster(check *c, const ubj_value *gb)
{
    if (!keys_are(c, gb, "gradient_booster", BOOSTER_KEYS))
        return false;
    const ubj_value *model = kt_ubj_get(gb, "model");
    if (!kt_ubj_is(kt_ubj_get(gb, "name"), "gbtree"))
        return bad(c, "the booster is not gbtree");
    if (!keys_are(c, model, "the gbtree model", MODEL_KEYS))
        return false;
    const ubj_value *param = kt_ubj_get(model, "gbtree_model_param");
    const ubj_value *trees = kt_ubj_get(model, "trees"), *info = kt_ubj_get(model, "tree_info");
    if (trees->kind != UBJ_ARRAY || trees->n == 0 || trees->n % c->groups != 0)
        return bad(c, "the trees are not whole rounds of %zu", c->groups);
    if (!keys_are(c, param, "gbtree_model_param", GBTREE_KEYS) ||
        !param_is(c, param, "num_parallel_tree", 1) ||
        !param_is(c, param, "num_trees", trees->n) || !param_is(c, param, "size_leaf_vector", 0))
        return false;
    if (info->kind != UBJ_ARRAY || info->n != trees->n)
        return bad(c, "tree_info does not have one entry per tree");
    for (size_t i = 0; i < info->n; i++)
        if (info->items[i].kind != UBJ_INT || info->items[i].i != (int64_t)(i % c->groups))
            return bad(c, "tree_info[%zu] is not %zu", i, i % c->groups);
    for (size_t i = 0; i < trees->n; i++)
        if (!check_tree(c, &trees->items[i], i))
            return false;
    c->where[0] = '\0';
    return true;
}

/* multi:softprob over num_class classes, or reg:squarederror. */
static bool check_objective(check *c, const ubj_value *obj)
{
    const char *name = c->nclass ? "multi:softprob" : "reg:squarederror";
    const char *sub = c->nclass ? "softmax_multiclass_param" : "reg_loss_param";
    const char *keys[] = {"name", sub, NULL};
    if (!keys_are(c, obj, "the objective", keys))
        return false;
    if (!kt_ubj_is(kt_ubj_get(obj, "name"), name))
        return bad(c, "the objective is not %s", name);
    const ubj_value *p = kt_ubj_get(obj, sub);
    const char *pk[] = {c->nclass ? "num_class" : "scale_pos_weight", NULL};
    return keys_are(c, p, sub, pk) &&
           (c->nclass ? param_is(c, p, "num_class", c->nclass)
                      : param_finite(c, p, "scale_pos_weight"));
}

static const char *const ROOT_KEYS[] = {"learner", "version", NULL};
static const char *const LEARNER_KEYS[] = {"attributes", "feature_names", "feature_types",
                                           "gradient_booster", "learner_model_param",
                                           "objective", NULL};
static const char *const LEARNER_PARAM_KEYS[] = {"base_score", "boost_from_average",
                                                 "num_class", "num_feature", "num_target",
                                                 NULL};

static bool check_version(check *c, const ubj_value *v)
{
    bool ok = v->kind == UBJ_ARRAY && v->n == 3;
    for (size_t i = 0; ok && i < 3; i++)
        ok = v->items[i].kind == UBJ_INT;
    if (!ok)
        return bad(c, "no version");
    if (v->items[0].i != 1 || v->items[1].i != 7)
        return bad(c, "written by XGBoost %" PRId64 ".%" PRId64 ".%" PRId64
                   "; ktune checks the layout of 1.7", v->items[0].i, v->items[1].i,
                   v->items[2].i);
    return true;
}

static bool check_learner(check *c, const ubj_value *root)
{
    if (!keys_are(c, root, "the model", ROOT_KEYS) ||
        !check_version(c, kt_ubj_get(root, "version")))
        return false;
    const ubj_value *l = kt_ubj_get(root, "learner");
    if (!keys_are(c, l, "the learner", LEARNER_KEYS))
        return false;
    const ubj_value *attr = kt_ubj_get(l, "attributes"), *p = kt_ubj_get(l, "learner_model_param");
    if (attr->kind != UBJ_OBJECT || attr->n != 0)
        return bad(c, "it has attributes");
    return empty_array(c, kt_ubj_get(l, "feature_names"), "feature_names") &&
           empty_array(c, kt_ubj_get(l, "feature_types"), "feature_types") &&
           keys_are(c, p, "learner_model_param", LEARNER_PARAM_KEYS) &&
           param_finite(c, p, "base_score") &&
           (kt_ubj_is(kt_ubj_get(p, "boost_from_average"), "0") ||
            param_is(c, p, "boost_from_average", 1)) &&
           param_is(c, p, "num_class", c->nclass) && param_is(c, p, "num_feature", c->nf) &&
           param_is(c, p, "num_target", 1) && check_objective(c, kt_ubj_get(l, "objective")) &&
           check_booster(c, kt_ubj_get(l, "gradient_booster"));
}

int kt_xgb_check(const void *bytes, size_t len, size_t num_feature, size_t num_class,
                 kt_diag *diag)
{
    check c = {.diag = diag, .nf = num_feature, .nclass = num_class,
               .groups = num_class ? num_class : 1};
    if (num_feature == 0 || num_feature > INT32_MAX || num_class > INT32_MAX)
        return kt_fail(diag, KT_EINVAL, "xgboost model: %zu features, %zu classes",
                       num_feature, num_class);
    /* XGBoost picks its reader by the first bytes: '{' then a key's 'L'
     * means UBJSON; anything else would reach its legacy binary reader */
    if (len < 2 || memcmp(bytes, "{L", 2) != 0)
        return kt_fail(diag, KT_EFORMAT, "xgboost model: not UBJSON");
    ubj_value *root;
    int rc = kt_ubj_parse(bytes, len, &root, diag);
    if (rc == KT_EFORMAT) {
        char why[sizeof diag->msg];
        snprintf(why, sizeof why, "%s", diag ? diag->msg : "");
        return kt_fail(diag, rc, "xgboost model: %s", why);
    }
    if (rc == KT_OK && !check_learner(&c, root))
        rc = c.rc;
    kt_ubj_free(root);
    return rc;
}
