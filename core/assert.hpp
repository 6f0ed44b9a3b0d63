// core/assert.hpp — invariant checks for pure code.
// HPAPLUS_ASSERT is checked in debug builds only; never use it on data from the API server or the
// user.
#pragma once
#include <cassert>

#define HPAPLUS_ASSERT(cond) assert(cond)
