// Sign in and create an account. The labels "Email", "Password", "Sign in" and "Create account"
// are the server's (dash.*), in the browser's language until the user's is known.
import * as A from './api.js';
import { h, field, input, clear, showProblem, formError } from './ui.js';

const { t } = A;

export function renderAuth(root, { onSignedIn }, mode = 'sign-in') {
  clear(root);
  const creating = mode === 'register';
  const email = input({ type: 'email', autocomplete: 'username', required: true, name: 'email' });
  const password = input({ type: 'password', autocomplete: creating ? 'new-password' : 'current-password', required: true, minLength: creating ? 10 : undefined, name: 'password' });
  const name = input({ autocomplete: 'name', required: true, name: 'name' });
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const timezone = input({ value: zone, required: true, name: 'timezone' });
  const form = h('form', { class: 'auth-form', novalidate: true },
    h('h1', {}, t('dash.app')),
    formError(),
    creating ? field('dash.your_name', name, { name: 'name' }) : null,
    field('dash.email', email, { name: 'email' }),
    field('dash.password', password, { name: 'password' }),
    creating ? h('p', { class: 'hint' }, t('dash.password_rule')) : null,
    creating ? field('dash.timezone', timezone, { name: 'timezone' }) : null,
    h('button', { type: 'submit', class: 'primary' }, creating ? t('dash.create_account') : t('dash.sign_in')),
    h('button', { type: 'button', class: 'link-button', onclick: () => renderAuth(root, { onSignedIn }, creating ? 'sign-in' : 'register') },
      creating ? t('dash.have_account') : t('dash.create_account')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      if (creating) {
        await A.register({ email: email.value.trim(), password: password.value, name: name.value.trim(), timezone: timezone.value.trim(),
          language: A.currentLabels() && document.documentElement.lang in { en: 1, ru: 1, sr: 1 } ? document.documentElement.lang : undefined });
      } else {
        await A.signIn(email.value.trim(), password.value);
      }
      await onSignedIn();
    } catch (error) {
      showProblem(form, error);
      button.disabled = false;
    }
  });
  root.append(h('main', { id: 'main', class: 'auth' }, form), h('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' }));
  (creating ? name : email).focus();
}
