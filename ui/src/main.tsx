// The app: who is signed in decides between the login page and the pages of the console.
import "./styles.css";
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { getProfile, logout, me as readMe } from "./api/auth";
import { ApiError, cookie, onSessionEnded } from "./api/client";
import { ErrorBoundary } from "./components/boundary";
import { Layout } from "./components/layout";
import { ErrorBanner, Loading } from "./components/ui";
import { setLocale, warmUpFormatting } from "./lib/format";
import { navigate, useLocation } from "./lib/router";
import { Login } from "./pages/login";
import { Routes } from "./routes";
import { SessionContext, type Session } from "./session";

// A `next` address to return to after sign-in, only if it stays on this origin (a path such as
// "//evil.example" or one with a backslash that browsers read as "//" does not).
function sameOriginPath(next: string | null): string {
  if (!next) return "/";
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin !== window.location.origin || url.pathname === "/login") return "/";
    return url.pathname + url.search + url.hash;
  } catch {
    return "/";
  }
}

function App() {
  const location = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  // Reads who is signed in; whether there is a session.
  const load = useCallback(async (): Promise<boolean> => {
    // No CSRF cookie: no session to ask about (saves a 401 on every visit of the login page).
    if (!cookie("csrf_token")) {
      setSession(null);
      return false;
    }
    try {
      // Both at once: one round trip before the first page, not two.
      const [me, { profile }] = await Promise.all([readMe(), getProfile()]);
      setLocale(profile.time_zone, profile.language);
      setSession({
        me,
        profile,
        reload: async () => {
          await load();
        },
        logout: async () => {
          try {
            await logout();
          } catch (e) {
            // A session that already ended is signed out; any other failure is shown, and the
            // cookies (which the server clears) stay until it works.
            if (!(e instanceof ApiError && e.status === 401)) throw e;
          }
          setSession(null);
          navigate("/login");
        },
      });
      setError(null);
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setSession(null);
      else setError(e);
      return false;
    }
  }, []);

  useEffect(() => {
    onSessionEnded(() => setSession(null));
    void load();
    setTimeout(warmUpFormatting, 0);
  }, [load]);

  if (error) {
    return (
      <main class="login" id="main">
        <ErrorBanner error={error} />
        <button
          type="button"
          onClick={() => {
            setError(null);
            setSession(undefined);
            void load();
          }}
        >
          Try again
        </button>
      </main>
    );
  }
  if (session === undefined) return <Loading />;
  if (session === null || location.path === "/login") {
    return (
      <Login
        onSignedIn={async () => {
          if (!(await load())) {
            throw new Error(
              "The sign-in worked, but the browser did not keep the session cookies. If the server runs with server.secure_cookies = true, open it over HTTPS.",
            );
          }
          // Back where the session ended (or to `next`), else the dashboard.
          const here = location.path === "/login" ? null : window.location.pathname + window.location.search;
          navigate(sameOriginPath(location.query.get("next") ?? here), true);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout>
        <ErrorBoundary key={location.path}>
          <Routes path={location.path} query={location.query} />
        </ErrorBoundary>
      </Layout>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
