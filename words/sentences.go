package words

import "fmt"

// Person says that the agent is waiting on a person, quoting what it
// asked, and names the fix.
func Person(question, fix string) string {
	return fmt.Sprintf("the agent is waiting on a person: it asked %q, and nobody can answer a headless run; %s", question, fix)
}

// Budget says that the run passed a budget: which one, its limit and the
// total the agent reported, in dollars for a cost, else in tokens.
func Budget(budget string, cost bool, limit, total float64) string {
	if cost {
		return fmt.Sprintf("the agent stated a cost of %s, past the %s budget of %s", Dollars(total), budget, Dollars(limit))
	}
	return fmt.Sprintf("the agent reported %s tokens of input, cache writes and output, past the %s budget of %s", Thousands(int64(total)), budget, Thousands(int64(limit)))
}
