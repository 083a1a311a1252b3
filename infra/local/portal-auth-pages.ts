/**
 * The pages of the local stand-in for Cognito's managed login (openid-provider.ts): "Sign up",
 * "Verify email" and "Sign in", plain HTML with labelled fields and no script, as the portal's
 * CSP requires.
 */
import type { ServerResponse } from 'node:http';
import { MIN_PASSWORD_LENGTH } from './portal-accounts.ts';

/** The sign-up form, with a refusal's message. */
export function signUpForm(message: string, email: string): string {
  return `<h1>Sign up</h1>${alert(message)}<form method="post" action="/signup">
<p><label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"></p>
<p><label for="password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label> <input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></p>
<p><button type="submit">Sign up</button></p></form>`;
}

/** The verification form. */
export function verifyForm(message: string, email: string): string {
  return `<h1>Verify email</h1>${alert(message)}<p>Enter the 6-digit code sent to your email (on the local stack: printed by <code>npm start</code>).</p>
<form method="post" action="/verify">
<p><label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"></p>
<p><label for="code">Code</label> <input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" required></p>
<p><button type="submit">Verify email</button></p></form>`;
}

/** The sign-in form of interaction `uid`. */
export function signInForm(uid: string, message: string, email: string): string {
  return `<h1>Sign in</h1>${alert(message)}<form method="post" action="/interaction/${escapeHtml(uid)}">
<p><label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p></form>
<p>No account? <a href="/signup">Sign up</a>. Not verified yet? <a href="/verify">Verify email</a>.</p>`;
}

/** A refusal's message, announced to screen readers. */
function alert(message: string): string {
  return message ? `<p role="alert">${escapeHtml(message)}</p>` : '';
}

/** A whole page: `body` in `main`, the title. */
export function html(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} – Petstore portal</title></head><body><main>${body}</main></body></html>`;
}

/** `text` safe in HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Answers `status` with a page, never cached. */
export function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(body);
}

/** 303 See Other to `location`. */
export function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { location });
  response.end();
}
