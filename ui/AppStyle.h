// The window's style: Fusion, with every table header's sort arrow pointing the way its rows
// run (Qt gives a descending column SortUp, which Fusion draws as ▲: the Runs list, newest
// first, showed ▲ on ID; the trades list, ascending, ▼). main() applies it once; tests that
// look at drawn headers apply it too. GUI thread only.
#pragma once

namespace nnwb {

// Sets QApplication's style to Fusion with the sort arrows as above (idempotent).
void applyAppStyle();

}  // namespace nnwb
