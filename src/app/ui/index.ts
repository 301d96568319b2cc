// The design system of the floor app: accessible building blocks
// with touch targets of at least 44 px, styled by src/app/app.css. Generic
// components only; an area's own go in its folder.
export { Button, LinkButton } from './button';
export { TextField, PasswordField, CodeField, NumberField, NumberInput, Select, Checkbox } from './fields';
export { PageHeader, Card, Badge, EmptyState, Notice, ErrorNotice, Loading, useErrorText, type Tone } from './layout';
export { Tabs } from './tabs';
export { Dialog } from './dialog';
export { ESignatureDialog } from './e-signature-dialog';
export { toast, Toasts } from './toast';
export { Icon } from './icon';
export { useAsync } from './use-async';
