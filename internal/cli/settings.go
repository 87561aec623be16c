package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/metric"
)

// registerSettings registers on fl a flag for every setting the metrics
// declare (metric.Settings: name, default, help), bound to its field in o;
// with serveOnly, only those serve offers (Setting.Serve: the others keep
// their zero value in o). eval, generate and serve call it, so that a
// metric's flag is declared once, with the metric.
func registerSettings(fl *pflag.FlagSet, o *metric.Options, serveOnly bool) {
	for _, s := range metric.Settings() {
		if serveOnly && !s.Serve {
			continue
		}
		switch p := s.Field(o).(type) {
		case *bool:
			fl.BoolVar(p, s.Flag, s.Default.(bool), s.Help)
		case *int:
			fl.IntVar(p, s.Flag, s.Default.(int), s.Help)
		case *int64:
			fl.Int64Var(p, s.Flag, s.Default.(int64), s.Help)
		case *string:
			fl.StringVar(p, s.Flag, s.Default.(string), s.Help)
		case *time.Duration:
			fl.DurationVar(p, s.Flag, s.Default.(time.Duration), s.Help)
		default:
			panic(fmt.Sprintf("cli: setting --%s of type %T", s.Flag, p)) // metric.RegisterSetting checked it
		}
	}
}
