/*
 * chart.h - what every chart shares: pinned fonts and font options, text,
 * axes, colours, number formatting, and rendering one drawing to PNG, SVG
 * and PDF with the same bytes every time.
 *
 * A chart kind (bars.h, heatmap.h, distribution.h, series.h, scatter.h) is a
 * plain data struct plus a chart_draw_fn that draws it into a rectangle of a
 * struct chart. The same function draws the chart files and the vector
 * figures of the PDF report, so what the reader sees is one drawing.
 *
 * Units are points (1/72 in): pango's resolution is fixed at 72 dpi, so a
 * 10 pt label is 10 units tall on every surface; PNGs are drawn scaled.
 *
 * Determinism: text is drawn with explicit font options (grey antialiasing,
 * no hinting, no hint metrics), so glyph rasterisation does not depend on a
 * machine's fontconfig preferences; PDF dates come from the caller; SVG
 * surface ids, which cairo numbers per process, are renumbered per file.
 */
#ifndef BENCHGEN_CHART_H
#define BENCHGEN_CHART_H

#include <stddef.h>

#include <cairo.h>
#include <pango/pangocairo.h>

#include "base/util.h"

struct chart_rect {
    double x, y, w, h;
};

enum chart_font { CHART_FONT_REGULAR, CHART_FONT_BOLD, CHART_FONT_MONO, CHART_FONT_ITALIC, CHART_FONT_COUNT };

/* Text flags. */
enum {
    CHART_WRAP = 1 << 0,     /* wrap at max_w (word, then character) */
    CHART_ELLIPSIZE = 1 << 1, /* cut at max_w with an ellipsis */
    CHART_KEEP_HYPHENS = 1 << 2 /* with CHART_WRAP: never break a line at '-' ("torch-eager" stays whole) */
};

/* A drawing context: a borrowed cairo context, the fonts, and the text
 * cache's pango context for it (textcache.h: text is laid out once for
 * every drawing that would lay it out the same way). */
struct chart {
    cairo_t *cr;
    unsigned text_ctx;
    PangoFontDescription *font[CHART_FONT_COUNT];
    struct strbuf *hover; /* SVG hover rectangles (chart_hover); NULL: not kept */
};

#define CHART_FAMILY "DejaVu Sans"
#define CHART_FAMILY_MONO "DejaVu Sans Mono"

/* The margin round a chart (its heading and its body), and round a small
 * panel among others. */
#define CHART_MARGIN 8.0
#define CHART_PANEL_MARGIN 6.0

/* Sets the fixed font options on cr and picks the text context. Returns 0.
 * chart_fini() releases what chart_init() made (not cr). */
int chart_init(struct chart *c, cairo_t *cr);
void chart_fini(struct chart *c);

/* Font options every surface must carry before text is laid out. */
void chart_font_options(cairo_t *cr);

/* Points fontconfig at DIR/fonts/fonts.conf (DIR = benchgen home) unless the
 * user set FONTCONFIG_FILE, then checks that DejaVu Sans resolves to a real
 * file. Call before any pango use. BG_ENOTFOUND when the font is missing. */
int chart_fonts_init(const char *home);

/* Draws text so that the point (ax, ay) of its box, as fractions of its
 * width and height (0,0 = top left, 0.5,0.5 = centre), lands on (x, y).
 * max_w <= 0 means unbounded; flags are CHART_WRAP / CHART_ELLIPSIZE.
 * Uses the current source colour. Returns the drawn width. */
double chart_text(struct chart *c, enum chart_font f, double size, double x, double y, double ax, double ay,
                  double max_w, unsigned flags, const char *text);

/* The same, rotated by angle radians around (x, y) (e.g. -M_PI/2 for a y-axis label). */
void chart_text_rotated(struct chart *c, enum chart_font f, double size, double x, double y, double ax,
                        double ay, double angle, const char *text);

/* The most bytes of one text a chart lays out: a longer text is cut at a
 * character's start and ends in an ellipsis (U+2026). */
#define CHART_TEXT_MAX 4096

/* Size of text as chart_text() would draw it. */
void chart_text_size(struct chart *c, enum chart_font f, double size, double max_w, unsigned flags,
                     const char *text, double *w, double *h);

/* A hover value for the SVG output (HTML tooltips): an invisible rectangle
 * over (x, y, w, h) in the drawing's coordinates whose <title> is the
 * printf-formatted text. Every chart gives one to each bar and point it
 * draws. Only SVG files carry them (after the drawing, on top); PNG, PDF
 * and report pages ignore them. */
void chart_hover(struct chart *c, double x, double y, double w, double h, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* ---- heading ------------------------------------------------------------ */
/* The block at the top of a chart: a title, a subtitle, a note and a
 * warning, in that order, one line each, cut with an ellipsis at the
 * chart's width less its margins. Each may be NULL: no line, no room. Every
 * chart kind draws its heading with chart_heading() and sizes it with
 * chart_heading_height(), so the two always agree. */
enum chart_heading_size {
    /* a chart of its own (bars, heatmap, forest, scatter, trend): an 8 pt
     * margin; title 11 pt bold in 18, subtitle 8.5 pt muted in 14, note
     * 7.5 pt muted and warning 7.5 pt red in 11 each */
    CHART_HEADING_FIGURE,
    /* a small panel among others (a cell's distribution and step series):
     * a 6 pt margin; title 8.5 pt bold in 12, subtitle, note (muted) and
     * warning (red) 7 pt in 10 each */
    CHART_HEADING_PANEL
};

struct chart_heading {
    enum chart_heading_size size;
    const char *title, *subtitle, *note, *warning;
};

/* The height the heading takes from the top of its rectangle, the top
 * margin included: where the chart's body starts. */
double chart_heading_height(const struct chart_heading *h);

/* Draws the heading at the top of r, inset by its margin on the left, right
 * and top, and returns the height it used (chart_heading_height(h)). */
double chart_heading(struct chart *c, struct chart_rect r, const struct chart_heading *h);

/* ---- colours ------------------------------------------------------------ */
#define CHART_INK 0x222222u
#define CHART_MUTED 0x666666u
#define CHART_GRID 0xE3E3E3u
#define CHART_NA 0x6E6E6Eu /* NA notes and marks: 5.1:1 on white */
/* better against worse (colour-blind safe: blue against orange), their
 * table tints, and "can't tell" */
#define CHART_BETTER 0x0072B2u
#define CHART_WORSE 0xB84A00u
#define CHART_UNSURE 0xA6498Au
#define CHART_BETTER_BG 0xC6DBEFu
#define CHART_WORSE_BG 0xFDD0A2u
#define CHART_UNSURE_BG 0xF1E0ECu
#define CHART_WARN 0xB3261Eu

void chart_rgb(struct chart *c, unsigned rgb);
void chart_rgba(struct chart *c, unsigned rgb, double alpha);
/* A colour-blind-safe qualitative palette (Paul Tol's muted, less its blue
 * and orange-ish members), one colour per catalog backend, cycling. */
unsigned chart_palette(size_t i);
/* Linear blend of two colours, t in [0,1]. */
unsigned chart_mix(unsigned a, unsigned b, double t);
/* WCAG 2 contrast ratio of two colours (1 to 21); text needs 4.5. */
double chart_contrast(unsigned a, unsigned b);
/* Black or white, whichever reads better on bg (at least 4.58:1 on any colour). */
unsigned chart_text_on(unsigned bg);

/* ---- axes --------------------------------------------------------------- */
#define CHART_MAX_TICKS 32

struct chart_axis {
    double lo, hi; /* data range drawn */
    int log;       /* log10 scale */
    double ticks[CHART_MAX_TICKS];
    size_t nticks;
    int decimals; /* for tick labels */
};

/* "Nice" linear range covering [lo, hi] with about target ticks. */
void chart_axis_linear(struct chart_axis *a, double lo, double hi, int target);
/* Log range covering [lo, hi] (both > 0), ticks at 1-2-5 steps of each decade. */
void chart_axis_log(struct chart_axis *a, double lo, double hi);
/* Position of v on an axis drawn from p0 (at lo) to p1 (at hi). */
double chart_axis_pos(const struct chart_axis *a, double v, double p0, double p1);
/* Tick label ("1,500", "0.25", "+40%"); percent adds a sign and %. */
void chart_axis_label(const struct chart_axis *a, double v, int percent, char *buf, size_t n);

/* Fences outside which a value is an outlier that a chart marks instead of
 * letting it set the scale: Q1 - 3 IQR and Q3 + 3 IQR of v (n > 0), the IQR
 * taken as at least 2% of the median so a perfectly flat series keeps a
 * visible band. v is not modified. Returns 0 (out of memory exits). */
int chart_fences(const double *v, size_t n, double *lo, double *hi);

/* ---- numbers ------------------------------------------------------------ */
/* Fixed decimals with thousands separators, locale-independent:
 * 1306.848 -> "1,306.85". NaN/Inf -> "NA". */
void chart_format_number(double v, int decimals, char *buf, size_t n);

/* ---- rendering ---------------------------------------------------------- */
enum { CHART_PNG = 1 << 0, CHART_SVG = 1 << 1, CHART_PDF = 1 << 2 };

typedef int (*chart_draw_fn)(struct chart *c, struct chart_rect r, const void *data);

struct chart_render_opts {
    double png_scale;      /* pixels per point, e.g. 2 */
    const char *pdf_date;  /* ISO 8601 UTC "2024-03-12T10:00:00Z" for PDF create/mod dates; NULL: none set */
    const char *pdf_title; /* may be NULL */
};

/* Draws fn(data) on a w x h page and writes path_noext + ".png"/".svg"/".pdf"
 * for each format bit. When svg_out is not NULL the (normalised) SVG text is
 * also returned, malloc'd, for inlining into HTML, even if CHART_SVG is not
 * in formats. Files are written to a temporary name and renamed into place. */
int chart_render(const char *path_noext, double w, double h, unsigned formats,
                 const struct chart_render_opts *o, chart_draw_fn fn, const void *data, char **svg_out);

/* Draws fn(data) into r on an existing context (a report page), with a
 * chart of its own; the context's state is saved and restored. */
int chart_draw_on(cairo_t *cr, struct chart_rect r, chart_draw_fn fn, const void *data);

/* Writes data to path via a temporary file in the same directory and a rename. */
int chart_write_file(const char *path, const void *data, size_t len);

#endif /* BENCHGEN_CHART_H */
