// The design system of the floor app: accessible building blocks
// with touch targets of at least 44 px, styled by src/app/app.css. Generic
// components only; an area's own go in its folder.
export { Button, LinkButton } from './Button';
export { TextField, PasswordField, CodeField, NumberField, NumberInput, Select, Checkbox } from './fields';
export { PageHeader, Card, Badge, EmptyState, Notice, ErrorNotice, Loading, useErrorText, type Tone } from './layout';
export { Tabs } from './Tabs';
export { Dialog } from './Dialog';
export { ESignatureDialog } from './ESignatureDialog';
export { toast, Toasts } from './Toast';
export { Icon } from './Icon';
export { useAsync } from './useAsync';
