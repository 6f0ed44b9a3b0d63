// metrics/backend_answer.cpp — the words for what a backend answered.
#include "metrics/backend_answer.hpp"

namespace hpaplus::metrics {

const char* to_string(answer_kind kind) {
    switch (kind) {
    case answer_kind::values:
        return "values";
    case answer_kind::no_data:
        return "no data";
    case answer_kind::unavailable:
        return "unavailable";
    case answer_kind::bad_answer:
        return "bad answer";
    }
    return "?";
}

} // namespace hpaplus::metrics
