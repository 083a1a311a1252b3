/**
 * The portal's entry: reads config.json, finishes a sign-in when the page is the provider's
 * redirect back, and renders the app into `#app`.
 */
import { html, render } from 'htm/preact';
import { App } from './app.ts';
import { loadConfig } from './config.ts';
import { createSession } from './session.ts';
import './styles.css';

const root = document.getElementById('app') as HTMLElement;
try {
  const config = await loadConfig();
  const session = createSession(config);
  let notice: string | undefined;
  try {
    await session.finishSignIn();
  } catch (error) {
    notice = `Signing in failed: ${(error as Error).message}`;
  }
  render(
    html`<${App} config=${config} session=${session} account=${await session.account()}
    notice=${notice} />`,
    root,
  );
} catch (error) {
  render(
    html`<main><h1>Petstore developer portal</h1>
    <p role="alert">The portal could not start: ${(error as Error).message}</p></main>`,
    root,
  );
}
