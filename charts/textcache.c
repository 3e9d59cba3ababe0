/*
 * textcache.c - laid-out text kept for reuse across drawings (see textcache.h).
 */
#include "charts/textcache.h"
#include "base/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096 /* a power of two; a few MB of layouts at most */

struct context {
    cairo_font_options_t *surface, *own;
    double xx, yx, xy, yy;
    PangoContext *ctx;
};

struct slot {
    PangoLayout *layout; /* NULL: empty */
    uint64_t hash;
    unsigned ctx;
    struct textcache_key key;
    char *text;
};

/* one per surface kind and text matrix a process draws with: a handful
 * (the chart scales, report.pdf's figure scales, rotated axis titles) */
static struct context *contexts;
static size_t ncontexts, capcontexts;
static struct slot slots[SLOTS];

static void context_free(struct context *k)
{
    if (k->ctx)
        g_object_unref(k->ctx);
    if (k->surface)
        cairo_font_options_destroy(k->surface);
    if (k->own)
        cairo_font_options_destroy(k->own);
    memset(k, 0, sizeof(*k));
}

unsigned textcache_context(cairo_t *cr)
{
    cairo_font_options_t *surface = cairo_font_options_create(), *own = cairo_font_options_create();
    cairo_surface_get_font_options(cairo_get_target(cr), surface);
    cairo_get_font_options(cr, own);
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    for (size_t i = 0; i < ncontexts; i++) {
        struct context *k = &contexts[i];
        if (k->xx == m.xx && k->yx == m.yx && k->xy == m.xy && k->yy == m.yy &&
            cairo_font_options_equal(k->surface, surface) && cairo_font_options_equal(k->own, own)) {
            cairo_font_options_destroy(surface);
            cairo_font_options_destroy(own);
            return (unsigned)i + 1;
        }
    }
    if (ncontexts == capcontexts) {
        capcontexts = capcontexts ? 2 * capcontexts : 8;
        contexts = xrealloc(contexts, capcontexts * sizeof(*contexts));
    }
    struct context *k = &contexts[ncontexts++];
    /* what chart_init() did per drawing: a context from cr, 1 pt == 1 unit */
    k->ctx = pango_cairo_create_context(cr); /* GLib aborts rather than return NULL */
    pango_cairo_context_set_resolution(k->ctx, 72.0);
    pango_context_set_round_glyph_positions(k->ctx, FALSE);
    k->surface = surface;
    k->own = own;
    k->xx = m.xx;
    k->yx = m.yx;
    k->xy = m.xy;
    k->yy = m.yy;
    return (unsigned)ncontexts;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int key_equal(const struct textcache_key *a, const struct textcache_key *b)
{
    return a->font == b->font && a->size == b->size && a->width == b->width && a->ellipsize == b->ellipsize &&
           a->keep_hyphens == b->keep_hyphens && a->align == b->align;
}

static PangoLayout *layout_new(PangoContext *ctx, const PangoFontDescription *desc,
                               const struct textcache_key *key, const char *text)
{
    PangoLayout *l = pango_layout_new(ctx);
    PangoFontDescription *d = pango_font_description_copy(desc);
    pango_font_description_set_size(d, key->size);
    pango_layout_set_font_description(l, d);
    pango_font_description_free(d);
    if (key->width >= 0) {
        pango_layout_set_width(l, key->width);
        pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
        pango_layout_set_ellipsize(l, key->ellipsize ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE);
    }
    pango_layout_set_alignment(l, (PangoAlignment)key->align);
    /* plain text, never markup: run metadata is shown exactly as stored */
    pango_layout_set_text(l, text, -1);
    if (key->keep_hyphens && strchr(text, '-')) {
        /* no break opportunity across a hyphen and the character after it */
        PangoAttrList *attrs = pango_attr_list_new();
        for (const char *p = strchr(text, '-'); p; p = strchr(p + 1, '-')) {
            PangoAttribute *a = pango_attr_allow_breaks_new(FALSE);
            a->start_index = (guint)(p - text);
            a->end_index = p[1] ? (guint)(g_utf8_next_char(p + 1) - text) : (guint)(p - text) + 1;
            pango_attr_list_insert(attrs, a);
        }
        pango_layout_set_attributes(l, attrs);
        pango_attr_list_unref(attrs);
    }
    return l;
}

PangoLayout *textcache_layout(unsigned ctx, const PangoFontDescription *desc, const struct textcache_key *key,
                              const char *text)
{
    if (!text)
        text = "";
    size_t len = strlen(text);
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, &ctx, sizeof(ctx));
    h = fnv(h, key, sizeof(*key));
    h = fnv(h, text, len);
    struct slot *s = &slots[h & (SLOTS - 1)];
    if (s->layout && s->hash == h && s->ctx == ctx && key_equal(&s->key, key) && strcmp(s->text, text) == 0)
        return s->layout;
    if (ctx == 0 || ctx > ncontexts) /* an id textcache_context() never gave */
        abort();
    PangoLayout *l = layout_new(contexts[ctx - 1].ctx, desc, key, text);
    if (s->layout) {
        g_object_unref(s->layout);
        free(s->text);
    }
    *s = (struct slot){l, h, ctx, *key, xstrndup(text, len)};
    return l;
}

void textcache_clear(void)
{
    for (size_t i = 0; i < SLOTS; i++)
        if (slots[i].layout) {
            g_object_unref(slots[i].layout);
            free(slots[i].text);
            memset(&slots[i], 0, sizeof(slots[i]));
        }
    for (size_t i = 0; i < ncontexts; i++)
        context_free(&contexts[i]);
    free(contexts);
    contexts = NULL;
    ncontexts = capcontexts = 0;
}
