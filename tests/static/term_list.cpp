// Compile-time checks of TermList (term_list.hpp): the terms a step cost holds are constructed,
// copied and read in constant expressions, though only those added are ever touched.
#include <ridgeline/step_cost.hpp>

#include <string>

#include "../seed_inputs.hpp"

namespace {
using namespace ridgeline;

struct Term {
    double value = 1;  // a default the list never applies to a slot it has not filled
    int group = 0;
};

constexpr TermList<Term, 4> two() {
    TermList<Term, 4> list;
    list.push_back(Term{2.5, 7});
    list.push_back(Term{});
    return list;
}
static_assert(TermList<Term, 4>{}.empty() && TermList<Term, 4>{}.size() == 0);
static_assert(two().size() == 2 && two()[0].value == 2.5 && two()[0].group == 7 && two()[1].value == 1);

// A copy holds the same terms; assigning a shorter list shortens the target.
constexpr bool copies() {
    const TermList<Term, 4> a = two();
    TermList<Term, 4> b = a;
    b.push_back(Term{9, 9});
    TermList<Term, 4> c;
    c = b;  // into empty slots
    c = a;  // back to two, the third left behind
    const bool shortened = c.size() == 2 && c[1].value == a[1].value && c[0].group == 7;
    c.push_back(Term{5, 5});  // into the slot the assignment left behind
    return b.size() == 3 && b[2].value == 9 && shortened && c.size() == 3 && c[2].value == 5 && c[2].group == 5;
}
static_assert(copies());

// A term must be plain data (the list copies only what it added, and destroys nothing).
static_assert(PlainTerm<Term> && PlainTerm<StepCost::ContextTerm> && PlainTerm<StepCost::RoutedTerm>);
static_assert(!PlainTerm<std::string>);
struct Fixed {
    const double value = 0;  // copyable, not assignable: a list could not shorten and grow again
};
static_assert(!PlainTerm<Fixed>);

// Llama-2-7B's one group reads one stream of cached context, and a step cost holding its two
// pipeline stages' terms is built, compared and copied at compile time (busiest_stage).
static_assert(step_cost(seed::llama2_7b(), Workload{}).context_terms.size() == 1);
static_assert(step_cost(seed::llama2_7b(), Workload{}, Parallelism{.pipeline = 2}).context_terms.size() == 1);
static_assert(!step_cost(seed::llama2_7b(), Workload{}).has_routed_experts());
}  // namespace
