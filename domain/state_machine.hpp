// A state machine as data: rows of (from, event, guard, to, effect, raised event), tried in order.
// Job and certificate life cycles are tables of this shape; docs/architecture.md mirrors them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

template <class Entity, class State, class Event, class Context>
struct Transition {
  State from;
  Event event;
  bool (*guard)(const Entity&, const Context&);
  std::string_view guard_text;  // the guard in words, for documentation and errors
  State to;
  void (*effect)(Entity&, const Context&);
  std::string_view effect_text;
  std::optional<EventKind> raises;
};

enum class TransitionMiss { no_row, guard_failed };

// Applies the first row whose state and event match and whose guard holds: runs its effect,
// sets the state, returns the raised event kind. Leaves the entity untouched otherwise and
// reports whether no row exists for (state, event) or only guards failed.
template <class Entity, class State, class Event, class Context>
std::variant<std::optional<EventKind>, TransitionMiss> applyTransition(
    std::span<const Transition<Entity, State, Event, Context>> table, Entity& entity,
    State Entity::*state, Event event, const Context& ctx) {
  bool rowExists = false;
  for (const auto& row : table) {
    if (row.from != entity.*state || row.event != event) continue;
    rowExists = true;
    if (!row.guard(entity, ctx)) continue;
    row.effect(entity, ctx);
    entity.*state = row.to;
    return row.raises;
  }
  return rowExists ? TransitionMiss::guard_failed : TransitionMiss::no_row;
}

}  // namespace certsteward::domain
