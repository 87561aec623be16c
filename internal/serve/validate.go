package serve

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// checkRequest refuses (HTTP 400, naming the field) a request that could
// only give rewards that look like a wrong answer but are not: an unknown
// preset or metric, an item without a db_id, a gold, or a prediction, a
// db_id that is not a database name or whose file lies outside --db
// (engine.ErrBadDBID). field names an item's fields, with %d for its
// index ("items[%d]", or "labels[%d]" for OpenRLHF). An unknown database
// is left to the item (its verdict is error).
func (s *Server) checkRequest(req *GradeRequest, field string) *requestError {
	if req.Preset != "" {
		if _, err := PresetByName(req.Preset); err != nil {
			return badRequest(`"preset": %v`, err)
		}
	}
	if req.Metric != "" {
		if _, err := s.metric(req.Metric); err != nil {
			return badRequest(`"metric": %v`, err)
		}
	}
	for i := range req.Items {
		if err := s.checkItem(req, &req.Items[i]); err != nil {
			return badRequest("%s.%v", fmt.Sprintf(field, i), err)
		}
	}
	return nil
}

// checkItem says what is wrong with an item, as "field: why".
func (s *Server) checkItem(req *GradeRequest, it *GradeItem) error {
	p, err := PresetByName(cmp.Or(it.Preset, req.Preset, "binary"))
	if err != nil {
		return fmt.Errorf("preset: %v", err)
	}
	if _, err := s.metric(cmp.Or(it.Metric, req.Metric, p.Metric, s.cfg.Metric)); err != nil {
		return fmt.Errorf("metric: %v", err)
	}
	if err := engine.CheckDBID(it.DBID); err != nil {
		return fmt.Errorf("db_id: %v", err)
	}
	if err := s.checkDB(it.DBID); errors.Is(err, engine.ErrBadDBID) {
		return fmt.Errorf("db_id: %v", err)
	}
	if len(it.Gold) == 0 {
		return errors.New("gold: missing or empty: want a SQL string or a list of them")
	}
	for k, g := range it.Gold {
		if strings.TrimSpace(g) == "" {
			return fmt.Errorf("gold: alternative %d is empty", k)
		}
	}
	switch {
	case it.Pred != nil && it.Completion != nil:
		return errors.New(`pred: give "pred" or "completion", not both`)
	case it.Pred == nil && it.Completion == nil:
		return errors.New(`pred: missing: give "pred" or "completion"`)
	case it.Pred != nil && p.Format:
		return fmt.Errorf("pred: preset %s grades a completion's format: send \"completion\", not \"pred\"", p.Name)
	}
	return nil
}
