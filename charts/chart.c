/*
 * chart.c - fonts, text, axes, colours and rendering shared by every chart
 * (see chart.h).
 */
#include "charts/chart.h"
#include "charts/textcache.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <zlib.h>

/* ---- fonts -------------------------------------------------------------- */

void chart_font_options(cairo_t *cr)
{
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_subpixel_order(fo, CAIRO_SUBPIXEL_ORDER_DEFAULT);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
}

int chart_fonts_init(const char *home)
{
    const char *user = getenv("FONTCONFIG_FILE");
    if (!user || !*user) {
        char conf[PATH_MAX];
        snprintf(conf, sizeof(conf), "%s/fonts/fonts.conf", home);
        if (!util_is_file(conf))
            return error_set(BG_ENOTFOUND,
                             "%s not found: the report draws with the fonts benchgen pins "
                             "(set BENCHGEN_HOME to the benchgen directory)",
                             conf);
        setenv("FONTCONFIG_FILE", conf, 1);
    }
    /* Check the family really resolves to DejaVu: with a stray config,
     * fontconfig would silently substitute another font and change the bytes. */
    PangoFontMap *map = pango_cairo_font_map_get_default();
    PangoContext *ctx = pango_font_map_create_context(map);
    PangoFontDescription *want = pango_font_description_from_string(CHART_FAMILY " 10");
    PangoFont *font = ctx && want ? pango_font_map_load_font(map, ctx, want) : NULL;
    PangoFontDescription *got = font ? pango_font_describe(font) : NULL;
    const char *family = got ? pango_font_description_get_family(got) : NULL;
    int err = 0;
    if (!family || strcmp(family, CHART_FAMILY) != 0)
        err = error_set(BG_ENOTFOUND,
                        "font \"%s\" not found by fontconfig (FONTCONFIG_FILE=%s); "
                        "benchgen ships it in fonts/",
                        CHART_FAMILY, getenv("FONTCONFIG_FILE"));
    if (got)
        pango_font_description_free(got);
    if (font)
        g_object_unref(font);
    if (want)
        pango_font_description_free(want);
    if (ctx)
        g_object_unref(ctx);
    return err;
}

int chart_init(struct chart *c, cairo_t *cr)
{
    memset(c, 0, sizeof(*c));
    c->cr = cr;
    chart_font_options(cr);
    c->text_ctx = textcache_context(cr);
    static const char *const desc[CHART_FONT_COUNT] = {CHART_FAMILY, CHART_FAMILY " Bold", CHART_FAMILY_MONO,
                                                       CHART_FAMILY " Italic"};
    for (int i = 0; i < CHART_FONT_COUNT; i++)
        c->font[i] = pango_font_description_from_string(desc[i]);
    return 0;
}

void chart_fini(struct chart *c)
{
    for (int i = 0; i < CHART_FONT_COUNT; i++)
        if (c->font[i])
            pango_font_description_free(c->font[i]);
    memset(c, 0, sizeof(*c));
}

static int bounded(double max_w, unsigned flags) { return max_w > 0 && (flags & (CHART_WRAP | CHART_ELLIPSIZE)); }

/* The layout of text as drawn, from the text cache (laid out once for all
 * drawings that would lay it out the same way). */
static PangoLayout *layout_text(struct chart *c, enum chart_font f, double size, double max_w, unsigned flags,
                                PangoAlignment align, const char *text)
{
    /* A text longer than CHART_TEXT_MAX bytes is cut there (at a character's
     * start) with an ellipsis: no chart shows that much of one text, and a
     * stranger's run.db can hold a 1 MiB model name, which pango took over 20
     * s to lay out (fuzz_runsql). */
    char cut[CHART_TEXT_MAX + 4];
    if (text && strnlen(text, CHART_TEXT_MAX + 1) > CHART_TEXT_MAX) {
        size_t n = CHART_TEXT_MAX;
        while (n && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
        memcpy(cut, text, n);
        memcpy(cut + n, "\xE2\x80\xA6", 4); /* U+2026 and the NUL */
        text = cut;
    }
    struct textcache_key k = {
        .font = (unsigned)f,
        .size = (int)lround(size * PANGO_SCALE),
        .width = bounded(max_w, flags) ? (int)(max_w * PANGO_SCALE) : -1,
        .ellipsize = bounded(max_w, flags) && (flags & CHART_ELLIPSIZE),
        .keep_hyphens = (flags & CHART_KEEP_HYPHENS) && (flags & CHART_WRAP),
        .align = (int)align,
    };
    return textcache_layout(c->text_ctx, c->font[f], &k, text);
}

void chart_text_size(struct chart *c, enum chart_font f, double size, double max_w, unsigned flags,
                     const char *text, double *w, double *h)
{
    PangoRectangle logical;
    pango_layout_get_extents(layout_text(c, f, size, max_w, flags, PANGO_ALIGN_LEFT, text), NULL, &logical);
    if (w)
        *w = (double)logical.width / PANGO_SCALE;
    if (h)
        *h = (double)logical.height / PANGO_SCALE;
}

double chart_text(struct chart *c, enum chart_font f, double size, double x, double y, double ax, double ay,
                  double max_w, unsigned flags, const char *text)
{
    int box = bounded(max_w, flags);
    PangoAlignment align = !box ? PANGO_ALIGN_LEFT
                           : ax >= 0.75 ? PANGO_ALIGN_RIGHT
                           : ax >= 0.25 ? PANGO_ALIGN_CENTER
                                        : PANGO_ALIGN_LEFT;
    PangoLayout *l = layout_text(c, f, size, max_w, flags, align, text);
    PangoRectangle logical;
    pango_layout_get_extents(l, NULL, &logical);
    double w = (double)logical.width / PANGO_SCALE, h = (double)logical.height / PANGO_SCALE;
    double box_w = box ? max_w : w;
    double ox = box ? 0 : (double)logical.x / PANGO_SCALE;
    cairo_move_to(c->cr, x - ax * box_w - ox, y - ay * h);
    pango_cairo_show_layout(c->cr, l);
    cairo_new_path(c->cr);
    return w;
}

void chart_text_rotated(struct chart *c, enum chart_font f, double size, double x, double y, double ax,
                        double ay, double angle, const char *text)
{
    cairo_save(c->cr);
    cairo_translate(c->cr, x, y);
    cairo_rotate(c->cr, angle);
    c->text_ctx = textcache_context(c->cr); /* lay out for the rotated matrix */
    chart_text(c, f, size, 0, 0, ax, ay, 0, 0, text);
    cairo_restore(c->cr);
    c->text_ctx = textcache_context(c->cr);
}

/* ---- heading ------------------------------------------------------------ */

struct heading_line {
    enum chart_font font;
    double size, height;
    unsigned rgb;
};

struct heading_style {
    double pad;
    struct heading_line line[4]; /* title, subtitle, note, warning */
};

static const struct heading_style heading_styles[] = {
    [CHART_HEADING_FIGURE] = {CHART_MARGIN,
                              {{CHART_FONT_BOLD, 11, 18, CHART_INK},
                               {CHART_FONT_REGULAR, 8.5, 14, CHART_MUTED},
                               {CHART_FONT_REGULAR, 7.5, 11, CHART_MUTED},
                               {CHART_FONT_REGULAR, 7.5, 11, CHART_WARN}}},
    [CHART_HEADING_PANEL] = {CHART_PANEL_MARGIN,
                             {{CHART_FONT_BOLD, 8.5, 12, CHART_INK},
                              {CHART_FONT_REGULAR, 7, 10, CHART_MUTED},
                              {CHART_FONT_REGULAR, 7, 10, CHART_MUTED},
                              {CHART_FONT_REGULAR, 7, 10, CHART_WARN}}},
};

static const struct heading_style *heading_style(const struct chart_heading *h)
{
    return &heading_styles[h->size == CHART_HEADING_PANEL ? CHART_HEADING_PANEL : CHART_HEADING_FIGURE];
}

double chart_heading_height(const struct chart_heading *h)
{
    const struct heading_style *s = heading_style(h);
    const char *text[4] = {h->title, h->subtitle, h->note, h->warning};
    double used = s->pad;
    for (int i = 0; i < 4; i++)
        if (text[i])
            used += s->line[i].height;
    return used;
}

double chart_heading(struct chart *c, struct chart_rect r, const struct chart_heading *h)
{
    const struct heading_style *s = heading_style(h);
    const char *text[4] = {h->title, h->subtitle, h->note, h->warning};
    /* line by line down from the top margin: the chart body starts at r.y
     * plus the height returned */
    double y = r.y + s->pad;
    for (int i = 0; i < 4; i++) {
        if (!text[i])
            continue;
        chart_rgb(c, s->line[i].rgb);
        chart_text(c, s->line[i].font, s->line[i].size, r.x + s->pad, y, 0, 0, r.w - 2 * s->pad, CHART_ELLIPSIZE,
                   text[i]);
        y += s->line[i].height;
    }
    return y - r.y;
}

/* ---- colours ------------------------------------------------------------ */

void chart_rgb(struct chart *c, unsigned rgb) { chart_rgba(c, rgb, 1.0); }

void chart_rgba(struct chart *c, unsigned rgb, double alpha)
{
    cairo_set_source_rgba(c->cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0,
                          (rgb & 0xFF) / 255.0, alpha);
}

static double luminance(unsigned rgb)
{
    double ch[3];
    for (int k = 0; k < 3; k++) {
        double v = (double)((rgb >> (16 - 8 * k)) & 0xFF) / 255.0;
        ch[k] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}

double chart_contrast(unsigned a, unsigned b)
{
    double la = luminance(a), lb = luminance(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

unsigned chart_text_on(unsigned bg)
{
    /* black, not ink: on a mid-tone only black or white reaches 4.5:1 */
    return chart_contrast(bg, 0x000000) >= chart_contrast(bg, 0xFFFFFF) ? 0x000000u : 0xFFFFFFu;
}

unsigned chart_palette(size_t i)
{
    /* Paul Tol's "muted" scheme, built to stay apart under the common colour
     * vision deficiencies, without its blue and its orange-ish members: blue
     * against orange means better against worse (CHART_BETTER, CHART_WORSE),
     * so no backend may look like either. Catalog order: PyTorch eager and
     * compiled are a wine/rose pair, the Keras 3 backends teal/green/purple. */
    static const unsigned pal[] = {
        0x882255, /* wine: PyTorch (eager) */
        0xCC6677, /* rose: PyTorch (compiled) */
        0x999933, /* olive: Keras 2 (TensorFlow) */
        0x44AA99, /* teal: Keras 3 (TensorFlow) */
        0x117733, /* green: Keras 3 (JAX) */
        0xAA4499, /* purple: Keras 3 (PyTorch) */
        0xDDCC77, /* sand: NumPy */
        0x332288, /* indigo, then grey: backends outside the catalog */
        0x777777,
    };
    return pal[i % (sizeof(pal) / sizeof(pal[0]))];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double sorted_quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (pos - (double)i) : v[n - 1];
}

int chart_fences(const double *v, size_t n, double *lo, double *hi)
{
    double *s = xmalloc((n ? n : 1) * sizeof(*s));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            s[k++] = v[i];
    *lo = -INFINITY;
    *hi = INFINITY;
    if (k) {
        qsort(s, k, sizeof(*s), cmp_double);
        double q1 = sorted_quantile(s, k, 0.25), q3 = sorted_quantile(s, k, 0.75);
        double iqr = q3 - q1, floor = 0.02 * fabs(sorted_quantile(s, k, 0.5));
        if (iqr < floor)
            iqr = floor;
        *lo = q1 - 3 * iqr;
        *hi = q3 + 3 * iqr;
    }
    free(s);
    return 0;
}

unsigned chart_mix(unsigned a, unsigned b, double t)
{
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    unsigned out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double ca = (a >> sh) & 0xFF, cb = (b >> sh) & 0xFF;
        out |= (unsigned)lround(ca + (cb - ca) * t) << sh;
    }
    return out;
}

/* ---- axes --------------------------------------------------------------- */

static double nice_step(double raw)
{
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return nice * mag;
}

void chart_axis_linear(struct chart_axis *a, double lo, double hi, int target)
{
    memset(a, 0, sizeof(*a));
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    if (hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (hi - lo < 1e-12) {
        double pad = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
        lo -= pad;
        hi += pad;
    }
    if (target < 2)
        target = 2;
    double step = nice_step((hi - lo) / (target - 1));
    a->lo = floor(lo / step + 1e-9) * step;
    a->hi = ceil(hi / step - 1e-9) * step;
    for (double v = a->lo; v <= a->hi + step * 1e-6 && a->nticks < CHART_MAX_TICKS; v += step)
        a->ticks[a->nticks++] = fabs(v) < step * 1e-9 ? 0 : v;
    double digits = -floor(log10(step) + 1e-9);
    a->decimals = digits > 0 ? (int)digits : 0;
    if (fabs(step * pow(10, a->decimals) - round(step * pow(10, a->decimals))) > 1e-6)
        a->decimals++; /* 2.5, 0.25 */
}

/* Largest (down) or smallest (up) value of the 1-2-5 sequence around v > 0. */
static double step125(double v, int up)
{
    static const double m[] = {1, 2, 5, 10};
    double d = pow(10, floor(log10(v)));
    if (up) {
        for (int i = 0; i < 4; i++)
            if (m[i] * d >= v * (1 - 1e-9))
                return m[i] * d;
        return 10 * d;
    }
    for (int i = 3; i >= 0; i--)
        if (m[i] * d <= v * (1 + 1e-9))
            return m[i] * d;
    return d;
}

void chart_axis_log(struct chart_axis *a, double lo, double hi)
{
    memset(a, 0, sizeof(*a));
    a->log = 1;
    if (!(lo > 0) || !isfinite(lo))
        lo = 1e-3;
    if (!(hi > lo) || !isfinite(hi))
        hi = lo * 10;
    /* bounds on the 1-2-5 sequence, not whole decades: a range of 170 to
     * 12,000 ends at 20,000, not at 100,000 */
    a->lo = step125(lo, 0);
    a->hi = step125(hi, 1);
    if (a->hi <= a->lo)
        a->hi = step125(a->lo * 1.01, 1);
    static const double mult[] = {1, 2, 5};
    double d0 = floor(log10(a->lo) + 1e-9), d1 = ceil(log10(a->hi) - 1e-9);
    size_t nm = d1 - d0 <= 3 ? 3 : 1;
    for (double d = d0; d <= d1 && a->nticks < CHART_MAX_TICKS; d++)
        for (size_t m = 0; m < nm && a->nticks < CHART_MAX_TICKS; m++) {
            double v = mult[m] * pow(10, d);
            if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9))
                a->ticks[a->nticks++] = v;
        }
    a->decimals = a->lo < 1 ? (int)ceil(-log10(a->lo) - 1e-9) : 0;
}

double chart_axis_pos(const struct chart_axis *a, double v, double p0, double p1)
{
    double t;
    if (a->log) {
        if (!(v > 0))
            v = a->lo;
        t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    } else {
        t = (v - a->lo) / (a->hi - a->lo);
    }
    return p0 + t * (p1 - p0);
}

void chart_axis_label(const struct chart_axis *a, double v, int percent, char *buf, size_t n)
{
    int dec = a->decimals;
    if (a->log)
        dec = v >= 1 ? 0 : (int)ceil(-log10(v) - 1e-9);
    char num[64];
    chart_format_number(v, dec, num, sizeof(num));
    if (percent)
        snprintf(buf, n, "%s%s%%", v > 0 ? "+" : "", num);
    else
        snprintf(buf, n, "%s", num);
}

/* ---- numbers ------------------------------------------------------------ */

void chart_format_number(double v, int decimals, char *buf, size_t n)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "NA");
        return;
    }
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    char raw[64];
    snprintf(raw, sizeof(raw), "%.*f", decimals, v);
    if (strcmp(raw, "-0") == 0 || (raw[0] == '-' && strspn(raw + 1, "0.") == strlen(raw + 1)))
        memmove(raw, raw + 1, strlen(raw)); /* "-0.00" */
    const char *p = raw;
    char out[96];
    size_t o = 0;
    if (*p == '-')
        out[o++] = *p++;
    size_t intlen = strcspn(p, ".");
    for (size_t i = 0; i < intlen; i++) {
        out[o++] = p[i];
        size_t left = intlen - i - 1;
        if (left > 0 && left % 3 == 0)
            out[o++] = ',';
    }
    snprintf(out + o, sizeof(out) - o, "%s", p + intlen);
    snprintf(buf, n, "%s", out);
}

/* ---- rendering ---------------------------------------------------------- */

static cairo_status_t write_strbuf(void *closure, const unsigned char *data, unsigned int length)
{
    return strbuf_append(closure, (const char *)data, length) == 0 ? CAIRO_STATUS_SUCCESS
                                                                   : CAIRO_STATUS_NO_MEMORY;
}

int chart_write_file(const char *path, const void *data, size_t len)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp))
        return error_set(BG_EIO, "path too long: %s", path);
    FILE *f = fopen(tmp, "wbe");
    if (!f)
        return error_set(BG_EIO, "cannot write %s: %s", tmp, strerror(errno));
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    int bad = w != len;
    if (fclose(f) != 0)
        bad = 1;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return error_set(BG_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

void chart_hover(struct chart *c, double x, double y, double w, double h, const char *fmt, ...)
{
    if (!c->hover)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    /* device coordinates are the SVG's: the chart may draw translated */
    double x0 = x, y0 = y, x1 = x + w, y1 = y + h;
    cairo_user_to_device(c->cr, &x0, &y0);
    cairo_user_to_device(c->cr, &x1, &y1);
    strbuf_printf(c->hover, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
                  fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0));
    escape_html(c->hover, text);
    strbuf_puts(c->hover, "</title></rect>\n");
}

static int draw_page(cairo_t *cr, double w, double h, chart_draw_fn fn, const void *data, struct strbuf *hover)
{
    struct chart c;
    int err = chart_init(&c, cr);
    if (err < 0)
        return err;
    c.hover = hover;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    err = fn(&c, (struct chart_rect){0, 0, w, h}, data);
    chart_fini(&c);
    return err;
}

/* cairo numbers SVG surfaces per process ("surface17"): renumber them in
 * order of appearance so a file's bytes do not depend on what was drawn
 * before it in the same process. */
static int svg_normalise(struct strbuf *svg)
{
    struct strbuf out = {0};
    long map_from[64];
    size_t nmap = 0;
    const char *p = svg->buf, *end = svg->buf + svg->len;
    int err = strbuf_append(&out, "", 0);
    while (err == 0 && p < end) {
        const char *hit = strstr(p, "surface");
        if (!hit) {
            err = strbuf_append(&out, p, (size_t)(end - p));
            break;
        }
        hit += strlen("surface");
        if ((err = strbuf_append(&out, p, (size_t)(hit - p))) < 0)
            break;
        if (*hit >= '0' && *hit <= '9') {
            char *num_end;
            long v = strtol(hit, &num_end, 10);
            size_t k = 0;
            while (k < nmap && map_from[k] != v)
                k++;
            if (k == nmap && nmap < sizeof(map_from) / sizeof(map_from[0]))
                map_from[nmap++] = v;
            err = strbuf_printf(&out, "%zu", k + 1);
            p = num_end;
        } else {
            p = hit;
        }
    }
    if (err < 0) {
        strbuf_free(&out);
        return err;
    }
    strbuf_free(svg);
    *svg = out;
    return 0;
}

/* Puts the hover rectangles on top of the drawing, before the closing
 * </svg>: painted with no opacity, so they show nothing and still take
 * the pointer, and their <title> is the browser's tooltip. */
static int svg_add_hover(struct strbuf *svg, const struct strbuf *hover)
{
    int err = strbuf_error(hover);
    const char *end = NULL;
    for (const char *p = svg->buf; (p = strstr(p, "</svg>")) != NULL; p++)
        end = p;
    if (err)
        return err;
    if (!end)
        return error_set(BG_EGENERIC, "SVG without </svg>");
    struct strbuf out = {0};
    strbuf_append(&out, svg->buf, (size_t)(end - svg->buf));
    strbuf_puts(&out, "<g class=\"hover\" fill-opacity=\"0\">\n");
    strbuf_append(&out, hover->buf, hover->len);
    strbuf_puts(&out, "</g>\n");
    strbuf_puts(&out, end);
    if ((err = strbuf_error(&out)) < 0) {
        strbuf_free(&out);
        return err;
    }
    strbuf_free(svg);
    *svg = out;
    return 0;
}

/* ---- PNG ------------------------------------------------------------------ */

static void png_chunk(struct strbuf *out, const char *type, const unsigned char *data, size_t len)
{
    unsigned char be[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                           (unsigned char)len};
    uLong crc = crc32(0L, (const Bytef *)type, 4);
    if (len)
        crc = crc32(crc, data, (uInt)len);
    unsigned char cb[4] = {(unsigned char)(crc >> 24), (unsigned char)(crc >> 16), (unsigned char)(crc >> 8),
                           (unsigned char)crc};
    strbuf_append(out, (const char *)be, 4);
    strbuf_append(out, type, 4);
    if (len)
        strbuf_append(out, (const char *)data, len);
    strbuf_append(out, (const char *)cb, 4);
}

/* Encodes an RGB24 image surface as an 8-bit RGB PNG. cairo's own writer
 * (libpng with adaptive filters at the default level) spends most of a
 * chart's time compressing; deflate level 1 without row filters is about
 * three times faster and, on flat chart colours, no larger. The output has
 * no time chunk, so it depends on the pixels alone. */
static int png_encode(cairo_surface_t *s, struct strbuf *out)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    size_t row = 1 + 3 * (size_t)w;
    unsigned char *line = xmalloc(row), *zbuf = NULL;
    z_stream z = {0};
    int err = 0;
    if (deflateInit(&z, 1) != Z_OK) { /* zlib's own allocation: the library's failure */
        free(line);
        return error_set(BG_EGENERIC, "PNG compression cannot start: %s", z.msg ? z.msg : "zlib failed");
    }
    size_t zcap = deflateBound(&z, (uLong)(row * (size_t)h));
    zbuf = xmalloc(zcap);
    z.next_out = zbuf;
    z.avail_out = (uInt)zcap;
    for (int y = 0; y < h; y++) {
        const uint32_t *src = (const uint32_t *)(px + (size_t)y * (size_t)stride);
        line[0] = 0; /* filter: none */
        for (int x = 0; x < w; x++) {
            uint32_t v = src[x];
            line[1 + 3 * x] = (unsigned char)(v >> 16);
            line[2 + 3 * x] = (unsigned char)(v >> 8);
            line[3 + 3 * x] = (unsigned char)v;
        }
        z.next_in = line;
        z.avail_in = (uInt)row;
        if (deflate(&z, y + 1 == h ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR) {
            err = error_set(BG_EIO, "PNG compression failed");
            goto done;
        }
    }
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char ihdr[13] = {(unsigned char)(w >> 24),
                              (unsigned char)(w >> 16),
                              (unsigned char)(w >> 8),
                              (unsigned char)w,
                              (unsigned char)(h >> 24),
                              (unsigned char)(h >> 16),
                              (unsigned char)(h >> 8),
                              (unsigned char)h,
                              8,
                              2,
                              0,
                              0,
                              0};
    strbuf_append(out, (const char *)sig, 8);
    png_chunk(out, "IHDR", ihdr, 13);
    png_chunk(out, "IDAT", zbuf, z.total_out);
    png_chunk(out, "IEND", NULL, 0);
done:
    deflateEnd(&z);
    free(line);
    free(zbuf);
    return err;
}

static int render_png(const char *path, double w, double h, double scale, chart_draw_fn fn, const void *data)
{
    int pw = (int)ceil(w * scale), ph = (int)ceil(h * scale);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
    cairo_t *cr = cairo_create(s);
    struct strbuf png = {0};
    int err = 0;
    cairo_scale(cr, scale, scale);
    if ((err = draw_page(cr, w, h, fn, data, NULL)) < 0)
        goto done;
    cairo_surface_flush(s);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { /* cairo's failure, out of memory among them */
        err = error_set(BG_EGENERIC, "cannot draw %s: %s", path, cairo_status_to_string(cairo_surface_status(s)));
        goto done;
    }
    if ((err = png_encode(s, &png)) == 0)
        err = chart_write_file(path, png.buf, png.len);
done:
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    strbuf_free(&png);
    return err;
}

static int render_vector(int pdf, const char *path, double w, double h, const struct chart_render_opts *o,
                         chart_draw_fn fn, const void *data, char **svg_out)
{
    struct strbuf buf = {0};
    cairo_surface_t *s = pdf ? cairo_pdf_surface_create_for_stream(write_strbuf, &buf, w, h)
                             : cairo_svg_surface_create_for_stream(write_strbuf, &buf, w, h);
    int err = 0;
    if (pdf) {
        if (o && o->pdf_date) {
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, o->pdf_date);
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_MOD_DATE, o->pdf_date);
        }
        if (o && o->pdf_title)
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, o->pdf_title);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "benchgen");
    }
    struct strbuf hover = {0};
    cairo_t *cr = cairo_create(s);
    err = draw_page(cr, w, h, fn, data, pdf ? NULL : &hover);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    if (err == 0 && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        err = error_set(BG_EIO, "cannot draw %s: %s", path ? path : "chart",
                        cairo_status_to_string(cairo_surface_status(s)));
    cairo_surface_destroy(s);
    if (err == 0 && !pdf)
        err = svg_normalise(&buf);
    if (err == 0 && !pdf && hover.len)
        err = svg_add_hover(&buf, &hover);
    strbuf_free(&hover);
    if (err == 0 && path)
        err = chart_write_file(path, buf.buf ? buf.buf : "", buf.len);
    if (err == 0 && svg_out)
        *svg_out = strbuf_detach(&buf);
    strbuf_free(&buf);
    return err;
}

int chart_render(const char *path_noext, double w, double h, unsigned formats,
                 const struct chart_render_opts *o, chart_draw_fn fn, const void *data, char **svg_out)
{
    char path[PATH_MAX];
    int err = 0;
    if (svg_out)
        *svg_out = NULL;
    if (formats & CHART_PNG) {
        snprintf(path, sizeof(path), "%s.png", path_noext);
        if ((err = render_png(path, w, h, o && o->png_scale > 0 ? o->png_scale : 2.0, fn, data)) < 0)
            return err;
    }
    if ((formats & CHART_SVG) || svg_out) {
        snprintf(path, sizeof(path), "%s.svg", path_noext);
        if ((err = render_vector(0, (formats & CHART_SVG) ? path : NULL, w, h, o, fn, data, svg_out)) < 0)
            return err;
    }
    if (formats & CHART_PDF) {
        snprintf(path, sizeof(path), "%s.pdf", path_noext);
        if ((err = render_vector(1, path, w, h, o, fn, data, NULL)) < 0) {
            if (svg_out) {
                free(*svg_out);
                *svg_out = NULL;
            }
            return err;
        }
    }
    return 0;
}

int chart_draw_on(cairo_t *cr, struct chart_rect r, chart_draw_fn fn, const void *data)
{
    struct chart c;
    cairo_save(cr);
    int err = chart_init(&c, cr);
    if (err == 0) {
        err = fn(&c, r, data);
        chart_fini(&c);
    }
    cairo_restore(cr);
    return err;
}

/* LeakSanitizer (make asan): fontconfig keeps the patterns pango resolves in
 * process-wide caches it never frees, by design; nothing of ours is hidden by
 * this, since only stacks through libfontconfig match. Unused otherwise. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }
