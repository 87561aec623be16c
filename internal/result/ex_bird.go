package result

// BirdEqual reports whether the predicted result equals the gold result
// under BIRD's execution accuracy (AlibabaResearch/DAMO-ConvAI,
// bird/llm/src/evaluation.py, execute_sql: `set(predicted_res) ==
// set(ground_truth_res)`): rows compared as sets of tuples, so duplicates and
// row order are ignored, columns are compared by position (no permutation),
// cells with Python == (1 == 1.0, '1' != 1, None == None). Two empty results
// are equal; a result with other column counts is never equal to a non-empty
// one.
func BirdEqual(gold, pred *Set) bool {
	gs := make(map[string]struct{}, len(gold.Rows))
	for _, r := range gold.Rows {
		gs[RowKey(r)] = struct{}{}
	}
	ps := make(map[string]struct{}, len(pred.Rows))
	for _, r := range pred.Rows {
		k := RowKey(r)
		if _, ok := gs[k]; !ok {
			return false
		}
		ps[k] = struct{}{}
	}
	return len(ps) == len(gs)
}
