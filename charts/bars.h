/*
 * bars.h - horizontal grouped bars with confidence-interval whiskers.
 *
 * Categories run down the chart; each has one bar per series. With one
 * category the series labels sit on the axis (a per-row panel of ms/step by
 * backend); with one series the category labels do (a published-style
 * speedup figure); otherwise categories label the axis and a legend names
 * the series. NA bars (NAN values) are drawn as a grey note giving the
 * reason ("NA (unsupported)"), never as a zero-length bar.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_BARS_H
#define BENCHGEN_BARS_H

#include "charts/chart.h"

struct bars {
    const char *title;      /* NULL: none */
    const char *subtitle;   /* NULL: none */
    const char *axis_label; /* value axis, e.g. "ms/step (lower is better)" */
    size_t ncat, nser;
    const char *const *cat;    /* ncat labels */
    const char *const *ser;    /* nser labels */
    const unsigned *color;     /* nser colours */
    const double *v;           /* ncat * nser values, [c * nser + s]; NAN = NA */
    const double *lo, *hi;     /* whisker ends, same layout; NULL or NAN entries: no whisker */
    const char *const *na;     /* NA notes, same layout; NULL or NULL entries: "NA" */
    const unsigned char *mark; /* same layout, non-zero: highlighted (the row's best); may be NULL */
    int percent;               /* signed values in percent, with a zero line */
    int decimals;              /* value labels */
    double bar_h;              /* bar thickness in pt; 0: 11 */
    const char *note;          /* a footnote under the axis, wrapped; NULL: none */
};

/* Height the chart needs at width w (points): bars have a fixed thickness,
 * so the figure grows with the number of categories and series. */
double bars_height(const struct bars *b, double w);

/* The value axis drawn over plot_w points: covers every value and whisker
 * and zero; in percent never below -100% (a throughput speed-up cannot be). */
void bars_value_axis(const struct bars *b, struct chart_axis *ax, double plot_w);

/* chart_draw_fn over a struct bars. */
int bars_draw(struct chart *c, struct chart_rect r, const void *bars);

#endif /* BENCHGEN_BARS_H */
