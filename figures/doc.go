// Package figures draws an experiment's summaries as figures with gonum/plot.
//
// A figure is a projection of the summary (results.Summary rows): a Spec
// picks one metric for the y axis, a field for the x axis (eps, n or a
// params key), a field whose values make the series (lines, usually the
// method) and a field whose values make the panels (usually the dataset),
// and filters the rows by field values. Project turns summaries and a spec
// into a Figure (panels of series of points, in the order the summaries
// first name them, which is plan order); Render draws that figure and
// writes it as SVG, PNG and PDF.
//
// Every figure is honest about what it shows. Each measured point is the
// mean over trials with its 95% confidence interval, drawn as error bars or
// a shaded band; the theory value, where the summary knows it, is a dashed
// line in the series' colour; a caption under the panels says so, with the
// number of trials and what one point is, in the words of the metric's
// description (package metrics): an RMSE is the square root of the mean
// squared error, and a metric that took the same value in every trial
// (sd = 0) is drawn without a CI and said to be. A log axis cannot show
// values ≤ 0: such points are left out and CI bars' lower bounds ≤ 0 are
// cut at the panel's smallest positive value, each with a warning and a
// count in the caption; a band's lower edge ≤ 0 (or below the axis, which
// the means set) is drawn open to the panel's bottom edge (Band.Open),
// counted in the caption too.
//
// The layout is ours, not gonum/plot's: gonum/plot pads a plot inwards
// from its canvas and reserves room for the y label at the arithmetic
// midpoint of the axis range (near the top on a log scale), so that panels
// of one figure came out with plot areas of different heights and titles
// floating above them. Here every panel's plot area has the same size;
// the layout places the areas, measures what the axes need around them,
// finds by fixed-point iteration the canvas whose plot area falls exactly
// there, and draws the panel titles and axis labels itself (see draw.go).
// Tick labels follow one rule in every panel (ticks.go): steps of 1, 2 or
// 5 × 10^k on linear axes, whole decades on log y axes (at least three),
// one notation per axis (plain decimals, else 10^k with superscripts drawn
// by supText), the same in every panel for a log axis.
//
// A spec may make x categorical (Spec.Categories, Spec.XCategorical):
// evenly spaced, labelled categories whose points are spread sideways by
// series and never joined. It may add ratio panels (Spec.RatioTo): each
// series divided by a named one, under each panel, for curves a few
// percent apart.
//
// On a categorical x, style = "box" (Spec.Style) draws the distribution
// of the trial values instead of their mean: per category and series
// Tukey's box plot, a box from the first to the third quartile, the
// median, whiskers to the most extreme values within 1.5 IQR of the box,
// the values beyond as hollow circles and the mean as a marker, from the
// quantiles and Tukey columns of summary.csv (in place of a paper's violin
// plots); the whiskers, not the outliers, set the y axis, and what lies
// beyond it is counted on the panel's edge (box.go).
//
// RenderHeatMap draws a table (package tables, heatmap = true) as a grid
// of coloured, annotated cells.
//
// A spec's references (Reference) are values printed in a paper, drawn
// beside the measurements as hollow diamonds on a dotted line, in the
// colour of the series they belong to and under their own label in the
// legend, and the caption says they are the paper's, not measured. A
// reference whose series the summaries lack (a run at another scale) is
// drawn in black with a warning rather than failing the figure.
//
// A series keeps its colour, marker and dashes in every panel of a figure
// (no two of its first 24 series alike, style.go), and one legend beside
// the panels names them all. SVG and PNG output is byte-stable, so figures
// are tested against golden SVG files (go test ./figures -run Golden
// -update rewrites them). SVG text names the Liberation fonts without
// embedding them; a viewer without those fonts substitutes its own.
package figures
