// The design system of the floor app: accessible building blocks
// with touch targets of at least 44 px, styled by src/app/app.css. Generic
// components only; an area's own go in its folder.
export { Button, LinkButton, type ButtonProps, type ButtonVariant } from './Button';
export { TextField, PasswordField, CodeField, NumberField, NumberInput, Select, Checkbox, type SelectOption } from './fields';
export { PageHeader, Card, Badge, EmptyState, Notice, ErrorNotice, Loading, useErrorText, type Tone } from './layout';
export { Tabs, type Tab } from './Tabs';
export { Dialog } from './Dialog';
export { ESignatureDialog, type ESignatureDialogProps } from './ESignatureDialog';
export { toast, dismiss, Toasts } from './Toast';
export { Icon, type IconName } from './Icon';
export { useAsync, type AsyncState } from './useAsync';
