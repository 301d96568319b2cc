import { api } from './api';
import { h } from './dom';
import { form } from './ui';

/**
 * Sign-in as an ordinary form (autocomplete username/current-password, so
 * password managers work): system administrators by username, client users by
 * email with the second-factor step when their account has one.
 */
export function signInPage(onSignedIn: () => void): HTMLElement {
  const panel = h('div.signin-panel');
  const tabs = h('div.tabs', { role: 'group', 'aria-label': 'Who signs in' });
  const showUser = () => select('user');
  const showAdmin = () => select('admin');
  const userTab = h('button', { type: 'button', onclick: showUser }, 'Organisation user');
  const adminTab = h('button', { type: 'button', onclick: showAdmin }, 'System administrator');
  tabs.append(userTab, adminTab);

  function select(kind: 'user' | 'admin'): void {
    userTab.setAttribute('aria-pressed', String(kind === 'user'));
    adminTab.setAttribute('aria-pressed', String(kind === 'admin'));
    panel.replaceChildren(kind === 'admin' ? adminForm() : userForm());
  }

  const adminForm = () =>
    form({
      label: 'System administrator sign-in',
      fields: [
        { name: 'username', label: 'Username', autocomplete: 'username', required: true },
        { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true },
      ],
      submit: 'Sign in',
      async onSubmit(values) {
        await api('POST', '/api/admin/auth/sign-in', { username: values.username, password: values.password });
        onSignedIn();
      },
    });

  const userForm = () =>
    form({
      label: 'Organisation user sign-in',
      fields: [
        { name: 'email', label: 'Email', type: 'email', autocomplete: 'username', required: true },
        { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true },
      ],
      submit: 'Sign in',
      async onSubmit(values) {
        const result = await api('POST', '/api/client/auth/sign-in', { email: values.email, password: values.password });
        if (result.twoFactorRequired) panel.replaceChildren(twoFactorForm(result.challengeToken));
        else onSignedIn();
      },
    });

  const twoFactorForm = (challengeToken: string) => {
    const step = form({
      label: 'Second factor',
      fields: [{ name: 'code', label: 'Code from your authenticator app (or a recovery code)', autocomplete: 'one-time-code', required: true }],
      submit: 'Verify',
      async onSubmit(values) {
        await api('POST', '/api/client/auth/verify-two-factor', { challengeToken, code: values.code.trim() });
        onSignedIn();
      },
    });
    queueMicrotask(() => step.querySelector('input')?.focus());
    return step;
  };

  select('user');
  return h('main.signin', { id: 'main' }, h('h1', {}, 'Sign in to the wip console'), tabs, panel);
}

/** The page of an invitation or password-reset link: the user sets a password, then signs in. */
export function setPasswordPage(kind: 'set' | 'reset', token: string, onDone: () => void): HTMLElement {
  const route = kind === 'set' ? 'set-password' : 'reset-password';
  return h(
    'main.signin',
    { id: 'main' },
    h('h1', {}, kind === 'set' ? 'Set your password' : 'Choose a new password'),
    form({
      label: kind === 'set' ? 'Set your password' : 'Choose a new password',
      fields: [{ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true }],
      submit: 'Save password',
      async onSubmit(values) {
        await api('POST', `/api/client/auth/${route}/${encodeURIComponent(token)}`, { password: values.password });
        history.replaceState(null, '', '/console/');
        onDone();
        return 'Password saved: you can sign in now.';
      },
    }),
  );
}
