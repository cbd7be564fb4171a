// A page that throws while it renders shows what went wrong instead of a blank screen; the
// next page (the boundary is keyed by the address) starts afresh.
import { Component, type ComponentChildren } from "preact";
import { describe } from "../api/client";

export class ErrorBoundary extends Component<{ children: ComponentChildren }, { error: unknown }> {
  override state = { error: null as unknown };

  override componentDidCatch(error: unknown) {
    this.setState({ error });
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div class="banner error" role="alert">
        <p>This page failed to show: {describe(this.state.error)}</p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
    );
  }
}
