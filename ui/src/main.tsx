// The app: who is signed in decides between the login page and the pages of the console.
import "./styles.css";
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, api, cookie, onSessionEnded } from "./api/client";
import type { Me, Profile } from "./api/types";
import { Layout } from "./components/layout";
import { ErrorBanner, Loading } from "./components/ui";
import { setLocale } from "./lib/format";
import { navigate, useLocation } from "./lib/router";
import { Login } from "./pages/login";
import { Routes } from "./routes";
import { SessionContext, type Session } from "./session";

function App() {
  const location = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    // No CSRF cookie: no session to ask about (saves a 401 on every visit of the login page).
    if (!cookie("csrf_token")) {
      setSession(null);
      return;
    }
    try {
      const me = await api.get<Me>("/auth/me");
      const { profile } = await api.get<{ profile: Profile }>("/auth/me/profile");
      setLocale(profile.time_zone, profile.language);
      setSession({
        me,
        profile,
        reload: load,
        logout: async () => {
          try {
            await api.post("/auth/logout");
          } finally {
            setSession(null);
            navigate("/login");
          }
        },
      });
      setError(null);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setSession(null);
      else setError(e);
    }
  }, []);

  useEffect(() => {
    onSessionEnded(() => setSession(null));
    void load();
  }, [load]);

  if (error) return <ErrorBanner error={error} />;
  if (session === undefined) return <Loading />;
  if (session === null || location.path === "/login") {
    return (
      <Login
        onSignedIn={async () => {
          await load();
          const next = location.query.get("next");
          navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", true);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout>
        <Routes path={location.path} query={location.query} />
      </Layout>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
